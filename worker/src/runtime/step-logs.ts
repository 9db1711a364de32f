/**
 * One log line when a step attempt starts and one when it ends, with the ids the API logs for the
 * run (workflowId, runId), the activity type (`<workflow>#<step>`) and the attempt; the end line
 * adds the outcome, the duration and, for a failure, the error's message. Inputs and results are
 * never logged (they may hold secrets, a webhook's among them). Local steps are logged too (the
 * interceptor sees them).
 * Levels: every step of every run passes here, so at the default level (info) only what needs a
 * look is written: a failed or canceled attempt's end line, and a webhook delivery's POSTs (calls
 * to another system). Starts and completions are debug lines (LOG_LEVEL=debug): at info they were
 * two lines per step of every run, formatted and written for no news (bench/RESULTS.md, cpu-per-run). A webhook
 * delivery's looks at the run it waits for are debug lines whatever their outcome: they repeat
 * every 30 s or less for as long as that run is open (docs/webhooks.md).
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
