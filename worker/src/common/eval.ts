/**
 * An eval definition: which evaluators judge a workflow's outputs over its datasets, how each
 * evaluator's value is read, and whether it decides the case's verdict (docs/evals.md).
 * Pure data: it lives in an `eval` module beside the workflow file (found like the steps
 * module), the worker publishes it in the catalog, and the eval workflow (worker/src/workflow/eval.ts)
 * runs it. Each evaluator of an eval is called with `{input, output, groundTruth}` of a case.
 */
import type { Static } from '@sinclair/typebox'
import type { Criticality, Interpretation } from '@flowport/core/eval'
import type { EvaluatorDefinition } from './step.js'
import type { WorkflowDefinition } from '../workflow/types.js'

/** What an evaluator of an eval receives: the case's input, the output evaluated, the case's ground truth (null without one). */
export interface EvalEvaluatorInput<I = unknown, O = unknown, G = unknown> {
  input: I
  output: O
  groundTruth: G | null
}

export interface EvalEntry {
  /** An evaluator of the workflow (its `evaluators` module, or a shared one). */
  evaluator: Pick<EvaluatorDefinition, 'kind' | 'name'>
  /** Default `required`: its verdict decides the case's; `informational` ones are only shown. */
  criticality?: Criticality
  interpret: Interpretation
}

export interface EvalSpec {
  /** The workflow this eval judges: the one defined beside the `eval` module. */
  workflow: { readonly definition: { readonly kind: 'flowport.workflow', readonly name: string } }
  evaluators: EvalEntry[]
}

export interface EvalDefinition {
  readonly kind: 'flowport.eval'
  readonly workflow: string
  readonly evaluators: ReadonlyArray<{ evaluator: string, criticality: Criticality, interpret: Interpretation }>
}

export function defineEval (spec: EvalSpec): EvalDefinition {
  return Object.freeze({
    kind: 'flowport.eval',
    workflow: spec.workflow.definition.name,
    evaluators: spec.evaluators.map((e) => ({ evaluator: e.evaluator.name, criticality: e.criticality ?? 'required', interpret: e.interpret }))
  })
}

export function isEval (value: unknown): value is EvalDefinition {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'flowport.eval'
}

/** The input type of an eval's evaluator for workflow `W`: `defineEvaluator({ inputSchema: … })` should accept it. */
export type EvalInputOf<W> = W extends WorkflowDefinition<infer I, infer O, any, any, any> ? EvalEvaluatorInput<Static<I>, Static<O>> : never
