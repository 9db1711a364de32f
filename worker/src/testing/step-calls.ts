/**
 * Records, in a workflow test, every step or evaluator attempt the worker runs (in the order they
 * start) and the failed attempts as the trace's attempt records, as a production worker's
 * recorder would write them (worker/src/trace/recorder.ts).
 */
import type { ActivityInterceptorsFactory } from '@temporalio/worker'
import { parseActivityType } from '@flowport/core/steps'
import type { AttemptRecord } from '@flowport/core/trace'
import { failedAttemptRecord } from '../trace/recorder.js'

export interface StepCall {
  /** The step's (or evaluator's) name, as the workflow calls it. */
  step: string
  /** `<workflow>#<step>`: a child workflow's steps are recorded too. */
  activityType: string
  workflowId: string
  input: unknown
  /** 1 on the first try. */
  attempt: number
  /** Whether the test replaced this step with a function. */
  mocked: boolean
  /** `null` while running; `completed` or `failed` (with the error's name and message) once it ended. */
  outcome: 'completed' | 'failed' | null
  error: { name: string, message: string } | null
}

export function stepCallLog (isMocked: (activityType: string) => boolean) {
  const calls: StepCall[] = []
  /** Failed attempts by run id (the engine's history keeps only each step's last attempt). */
  const attempts = new Map<string, AttemptRecord[]>()
  const interceptor: ActivityInterceptorsFactory = (ctx) => ({
    inbound: {
      async execute (input, next) {
        const { info } = ctx
        const run = info.workflowExecution ?? { workflowId: '', runId: '' }
        const call: StepCall = {
          step: parseActivityType(info.activityType).step,
          activityType: info.activityType,
          workflowId: run.workflowId,
          input: input.args[0] ?? null,
          attempt: info.attempt,
          mocked: isMocked(info.activityType),
          outcome: null,
          error: null
        }
        calls.push(call)
        const startTime = new Date().toISOString()
        try {
          const result = await next(input)
          call.outcome = 'completed'
          return result
        } catch (err) {
          const record = failedAttemptRecord(info, startTime, err, call.input)
          call.outcome = 'failed'
          call.error = { name: record.error.name, message: record.error.message }
          attempts.set(run.runId, [...(attempts.get(run.runId) ?? []), record])
          throw err
        }
      }
    }
  })
  return { calls, attempts, interceptor }
}
