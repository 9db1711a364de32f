/**
 * One validated call of a step or evaluator: input checked against its schema, `run`, output
 * checked. The worker's activities and a direct call in a unit test (`await greet(input)`) both go
 * through it, so a test meets the same `ValidationError`, with the same message, as a run does.
 */
import type { TSchema } from '@sinclair/typebox'
import { ValidationError } from './errors.js'
import { explain } from './validate.js'

/** What a call needs of a step or evaluator (structural: the definitions' module imports this one). */
export interface Invocable<C> {
  readonly kind: 'flowport.step' | 'flowport.evaluator'
  readonly inputSchema: TSchema
  readonly run: (input: never, ctx: C) => unknown
}

/**
 * Runs `component` on `input`; `label` names it in messages (`step flaky#unstable`). Errors of
 * `run` pass through unchanged: the activity turns them into failures, a unit test sees them as thrown.
 */
export async function invokeChecked<C> (component: Invocable<C>, outputSchema: TSchema, input: unknown, ctx: C, label: string): Promise<unknown> {
  const kind = component.kind === 'flowport.step' ? 'step' : 'evaluator'
  const problem = explain(component.inputSchema, input)
  if (problem !== undefined) throw new ValidationError(`Invalid input of ${kind} ${label}: ${problem}`)
  const output = await component.run(input as never, ctx)
  const outputProblem = explain(outputSchema, output)
  if (outputProblem !== undefined) throw new ValidationError(`Invalid output of ${kind} ${label}: ${outputProblem}`)
  return output
}
