/**
 * One log line when a step attempt starts and one when it ends, at info level, with the ids the
 * API logs for the run (workflowId, runId), the activity type (`<workflow>#<step>`) and the attempt;
 * the end line adds the outcome, the duration and, for a failure, the error's message. Inputs and
 * results are never logged (they may hold secrets, a webhook's among them). Local steps are logged
 * too (the interceptor sees them). A webhook delivery's looks at the run it waits for log at debug
 * level: they repeat every 30 s or less for as long as that run is open (docs/webhooks.md).
 */
import type { ActivityInterceptorsFactory } from '@temporalio/worker'
import { CancelledFailure } from '@temporalio/common'
import { WEBHOOK_AWAIT_ACTIVITY } from '@flowport/core/contract'
import type { Logger } from '../common/logger.js'

export function stepLogs (logger: Logger): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute (input, next) {
        const { activityType, attempt, workflowExecution } = ctx.info
        const fields = { workflowId: workflowExecution?.workflowId ?? null, runId: workflowExecution?.runId ?? null, activityType, attempt }
        const level = activityType === WEBHOOK_AWAIT_ACTIVITY ? 'debug' : 'info'
        logger[level](`Step ${activityType} started (attempt ${attempt})`, fields)
        const started = performance.now()
        let outcome = 'completed'
        let error: string | undefined
        try {
          return await next(input)
        } catch (err) {
          outcome = err instanceof CancelledFailure ? 'canceled' : 'failed'
          error = err instanceof Error ? err.message : String(err)
          throw err
        } finally {
          const durationMs = Math.round((performance.now() - started) * 10) / 10
          logger[level](`Step ${activityType} ${outcome} (attempt ${attempt}, ${durationMs} ms)`, { ...fields, outcome, durationMs, ...(error === undefined ? {} : { error }) })
        }
      }
    }
  })
}
