/**
 * Step and evaluator definitions. Pure data plus the user's `run`: the worker registers `run` as a
 * Temporal activity, and workflow code only ever sees these types (`import type`).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'
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

export interface StepSpec<I extends TSchema, O extends TSchema> {
  name: string
  description?: string
  inputSchema: I
  outputSchema: O
  /** Timeouts and retry policy over the defaults (see DEFAULT_STEP_OPTIONS). */
  options?: StepOptions
  run: (input: Static<I>, ctx: StepContext) => Promise<Static<O>> | Static<O>
}

/** A defined step: its spec, frozen, with the description and options it was given (null, undefined when none). */
export interface StepDefinition<I extends TSchema = TSchema, O extends TSchema = TSchema> extends Readonly<Omit<StepSpec<I, O>, 'description' | 'options'>> {
  readonly kind: 'flowport.step'
  readonly description: string | null
  readonly options: StepOptions | undefined
}

export function defineStep<I extends TSchema, O extends TSchema> (spec: StepSpec<I, O>): StepDefinition<I, O> {
  return Object.freeze({
    kind: 'flowport.step',
    name: spec.name,
    description: spec.description ?? null,
    inputSchema: spec.inputSchema,
    outputSchema: spec.outputSchema,
    options: spec.options,
    run: spec.run
  })
}

/**
 * The result of every evaluator: a score between 0 (worst) and 1 (best) and, optionally, why.
 * One shape for all evaluators so results can be compared and aggregated across workflows.
 */
export const EvaluationSchema = Type.Object({
  score: Type.Number({ minimum: 0, maximum: 1 }),
  reasoning: Type.Optional(Type.String())
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
  readonly kind: 'flowport.evaluator'
  readonly description: string | null
  readonly options: StepOptions | undefined
}

export function defineEvaluator<I extends TSchema> (spec: EvaluatorSpec<I>): EvaluatorDefinition<I> {
  return Object.freeze({
    kind: 'flowport.evaluator',
    name: spec.name,
    description: spec.description ?? null,
    inputSchema: spec.inputSchema,
    options: spec.options,
    run: spec.run
  })
}

export function isStep (value: unknown): value is StepDefinition {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'flowport.step'
}

export function isEvaluator (value: unknown): value is EvaluatorDefinition {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'flowport.evaluator'
}
