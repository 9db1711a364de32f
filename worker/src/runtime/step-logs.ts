/**
 * One log line when a step attempt (local steps too) starts and one when it ends, with the run's
 * ids, the activity type and the attempt; the end line adds the outcome, the duration and a
 * failure's message. Inputs and results are never logged: they may hold secrets. Which lines are
 * debug lines, and why, is docs/observability.md's "Logs": every step of every run passes here,
 * so at info only what needs a look is written.
 */
import type { ActivityInterceptorsFactory } from '@temporalio/worker'
import { CancelledFailure } from '@temporalio/common'
import { WEBHOOK_AWAIT_ACTIVITY, WEBHOOK_DELIVER_ACTIVITY } from '@flowport/core/contract'
import type { Logger } from '../common/logger.js'

export function stepLogs (logger: Logger): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute (input, next) {
        const { activityType, attempt, workflowExecution } = ctx.info
        const fields = { workflowId: workflowExecution?.workflowId ?? null, runId: workflowExecution?.runId ?? null, activityType, attempt }
        const level = activityType === WEBHOOK_DELIVER_ACTIVITY ? 'info' : 'debug'
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
          const endLevel = outcome !== 'completed' && activityType !== WEBHOOK_AWAIT_ACTIVITY ? 'info' : level
          logger[endLevel](`Step ${activityType} ${outcome} (attempt ${attempt}, ${durationMs} ms)`, { ...fields, outcome, durationMs, ...(error === undefined ? {} : { error }) })
        }
      }
    }
  })
}
