/**
 * Step and evaluator definitions. Data plus the user's `run`: the worker registers `run` as a
 * Temporal activity, and workflow code only ever sees these types (`import type`). A definition is
 * also a function, for unit tests without a server: `await greet({ name })` validates the input,
 * runs it with a context of its own (attempt 1, no-op heartbeat) and validates the output.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { activityTypeOf } from '@flowport/core/steps'
import { invokeChecked } from './invoke.js'
import type { StepOptions } from './step-options.js'

/** What a step's `run` receives besides its input. */
export interface StepContext {
  /** 1 on the first try, 2 on the first retry, … */
  readonly attempt: number
  /** Canonical name of the workflow that called the step. */
  readonly workflowName: string
  readonly workflowId: string
  readonly runId: string
  /** Temporal activity type: `<workflow>#<step>`. */
  readonly activityType: string
  /** Aborted when the step is cancelled (workflow stopped) or the worker shuts down. */
  readonly signal: AbortSignal
  /** Reports progress; required for steps that set a `heartbeatTimeout`. */
  heartbeat (details?: unknown): void
}

/**
 * A direct call's context: what a test sets (e.g. `attempt: 3`, `workflowName`) over attempt 1,
 * empty ids, a signal that never aborts and a heartbeat that does nothing.
 */
export type DirectCallContext = Partial<StepContext>

export interface StepSpec<I extends TSchema, O extends TSchema> {
  name: string
  description?: string
  inputSchema: I
  outputSchema: O
  /** Timeouts and retry policy over the defaults (see DEFAULT_STEP_OPTIONS). */
  options?: StepOptions
  run: (input: Static<I>, ctx: StepContext) => Promise<Static<O>> | Static<O>
}

function directContext (name: string, given: DirectCallContext = {}): StepContext {
  const workflowName = given.workflowName ?? ''
  return {
    attempt: 1,
    workflowId: '',
    runId: '',
    activityType: workflowName === '' ? name : activityTypeOf(workflowName, name),
    signal: new AbortController().signal,
    heartbeat: () => {},
    ...given,
    workflowName
  }
}

/** `fields` as a frozen function that validates and runs (a function's own `name` is redefined, not assigned). */
function callable<D extends { name: string, inputSchema: TSchema, run: (input: never, ctx: StepContext) => unknown, kind: 'flowport.step' | 'flowport.evaluator' }> (fields: D, outputSchema: TSchema): D {
  const call = async (input: unknown, given?: DirectCallContext): Promise<unknown> => {
    const ctx = directContext(fields.name, given)
    return await invokeChecked(fields, outputSchema, input, ctx, ctx.activityType)
  }
  for (const [key, value] of Object.entries(fields)) Object.defineProperty(call, key, { value, enumerable: true })
  return Object.freeze(call) as unknown as D
}

/** A defined step: its spec, frozen, with the description and options it was given (null, undefined when none). */
export interface StepDefinition<I extends TSchema = TSchema, O extends TSchema = TSchema> extends Readonly<Omit<StepSpec<I, O>, 'description' | 'options'>> {
  /** Calls the step outside a workflow (unit tests): input and output are validated as in a run. */
  (input: Static<I>, ctx?: DirectCallContext): Promise<Static<O>>
  readonly kind: 'flowport.step'
  readonly description: string | null
  readonly options: StepOptions | undefined
}

/** What steps and evaluators share: a definition's fields over its spec's. */
function fieldsOf<K extends 'flowport.step' | 'flowport.evaluator', S extends Omit<StepSpec<TSchema, TSchema>, 'outputSchema' | 'run'> & { run: (input: never, ctx: StepContext) => unknown }> (kind: K, spec: S) {
  return { kind, name: spec.name, description: spec.description ?? null, inputSchema: spec.inputSchema, options: spec.options, run: spec.run }
}

export function defineStep<I extends TSchema, O extends TSchema> (spec: StepSpec<I, O>): StepDefinition<I, O> {
  return callable({ ...fieldsOf('flowport.step', spec), outputSchema: spec.outputSchema }, spec.outputSchema) as unknown as StepDefinition<I, O>
}

/**
 * The result of every evaluator: a score between 0 (worst) and 1 (best) and, optionally, why.
 * One shape for all evaluators so results can be compared and aggregated across workflows. An
 * evaluator of an eval may also return the `value` its eval interprets (a boolean, a
 * pass/partial/fail verdict, a number or a string; core/src/eval.ts), where a score alone says too little.
 */
export const EvaluationSchema = Type.Object({
  score: Type.Number({ minimum: 0, maximum: 1 }),
  reasoning: Type.Optional(Type.String()),
  value: Type.Optional(Type.Union([Type.Boolean(), Type.Number(), Type.String()]))
}, { additionalProperties: false })

export type Evaluation = Static<typeof EvaluationSchema>

export interface EvaluatorSpec<I extends TSchema> {
  name: string
  description?: string
  inputSchema: I
  options?: StepOptions
  run: (input: Static<I>, ctx: StepContext) => Promise<Evaluation> | Evaluation
}

/** A defined evaluator: its spec, frozen, as for steps. */
export interface EvaluatorDefinition<I extends TSchema = TSchema> extends Readonly<Omit<EvaluatorSpec<I>, 'description' | 'options'>> {
  /** Calls the evaluator outside a workflow (unit tests): input and result are validated as in a run. */
  (input: Static<I>, ctx?: DirectCallContext): Promise<Evaluation>
  readonly kind: 'flowport.evaluator'
  readonly description: string | null
  readonly options: StepOptions | undefined
}

export function defineEvaluator<I extends TSchema> (spec: EvaluatorSpec<I>): EvaluatorDefinition<I> {
  return callable(fieldsOf('flowport.evaluator', spec), EvaluationSchema) as unknown as EvaluatorDefinition<I>
}

// Definitions are functions; objects of the same shape (e.g. from a hand-rolled copy) still count.
const kindOf = (value: unknown): unknown =>
  (typeof value === 'function' || (typeof value === 'object' && value !== null)) ? (value as { kind?: unknown }).kind : undefined

export function isStep (value: unknown): value is StepDefinition {
  return kindOf(value) === 'flowport.step'
}

export function isEvaluator (value: unknown): value is EvaluatorDefinition {
  return kindOf(value) === 'flowport.evaluator'
}
