/**
 * Typed step and evaluator callers for workflow code. A workflow file imports its steps module
 * with `import type`, so no step implementation reaches the bundle; the caller resolves the
 * activity `<current workflow>#<key>` and its options from the manifest at call time.
 */
import type { Static } from '@sinclair/typebox'
import { ApplicationFailure, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow'
import type { LocalStepResult } from '@flowport/core/local-step'
import { activityTypeOf } from '@flowport/core/steps'
import type { Evaluation, EvaluatorDefinition, StepDefinition } from '../common/step.js'
import { currentManifest } from './manifest.js'

// `any` here only matches definitions of every schema.
export type StepCallers<M> = {
  [K in keyof M as M[K] extends StepDefinition<any, any> ? K : never]:
  M[K] extends StepDefinition<infer I, infer O> ? (input: Static<I>) => Promise<Static<O>> : never
}

export type EvaluatorCallers<M> = {
  [K in keyof M as M[K] extends EvaluatorDefinition<any> ? K : never]:
  M[K] extends EvaluatorDefinition<infer I> ? (input: Static<I>) => Promise<Evaluation> : never
}

/**
 * Not async, and neither are the callers: the SDK records a stack trace for every promise made in
 * workflow code (for its stack-trace query), so each extra async layer costs every step a capture
 * (docs/performance.md, "The floor"). A missing step is still a rejected promise, never a throw.
 */
function callActivity (key: string, input: unknown): Promise<unknown> {
  const manifest = currentManifest()
  const type = workflowInfo().workflowType
  return callComponent(manifest.workflows[type] ?? type, key, input)
}

/** Calls the step or evaluator `key` of `workflow` (the eval workflow calls the evaluators of the workflow it judges). */
export function callComponent (workflow: string, key: string, input: unknown): Promise<unknown> {
  const manifest = currentManifest()
  const activityType = activityTypeOf(workflow, key)
  const options = manifest.activities[activityType]
  if (options === undefined) {
    return Promise.reject(ApplicationFailure.create({
      type: 'StepNotFoundError',
      message: `Workflow ${workflow} has no step or evaluator "${key}": put it in the steps/evaluators module next to the workflow file, or export it as a shared one`,
      nonRetryable: true
    }))
  }
  const { local, heartbeatTimeout, ...common } = options
  if (local === true) {
    const localActivities = proxyLocalActivities<Record<string, (input: unknown) => Promise<LocalStepResult>>>(common)
    return localActivities[activityType](input).then(outputOf)
  }
  const activities = proxyActivities<Record<string, (input: unknown) => Promise<unknown>>>({ ...common, heartbeatTimeout })
  return activities[activityType](input)
}

const outputOf = (result: LocalStepResult): unknown => result.output

function callers (): Record<string, unknown> {
  return new Proxy({}, {
    get (_target, key) {
      // Not a thenable: returning the callers from an async function must not call a step "then".
      if (typeof key !== 'string' || key === 'then') return undefined
      return (input: unknown) => callActivity(key, input)
    }
  })
}

/** `const { greet } = useSteps<typeof steps>()` with `import type * as steps from './steps.js'`. */
export function useSteps<M> (): StepCallers<M> {
  return callers() as StepCallers<M>
}

/** `const { lengthScore } = useEvaluators<typeof evaluators>()`; each call resolves to `{score, reasoning?}`. */
export function useEvaluators<M> (): EvaluatorCallers<M> {
  return callers() as EvaluatorCallers<M>
}
