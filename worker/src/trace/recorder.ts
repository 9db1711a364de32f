/**
 * Records every failed attempt of a step or evaluator before the failure reaches the engine: the
 * engine then schedules the retry, so the record exists before the next attempt can start, on
 * whichever worker that runs. (The engine's history keeps only the last attempt.)
 */
import type { ActivityInboundCallsInterceptor, ActivityInterceptorsFactory } from '@temporalio/worker'
import { CancelledFailure } from '@temporalio/common'
import { failureDetails } from '../common/failure-chain.js'
import type { Logger } from '../runtime/logger.js'
import type { TraceStore } from './store.js'
import { WEBHOOK_WORKFLOW_TYPE } from '../contract.js'

export function attemptRecorder (store: TraceStore, logger: Logger): ActivityInterceptorsFactory {
  return (ctx) => {
    const inbound: ActivityInboundCallsInterceptor = {
      async execute (input, next) {
        const startTime = new Date().toISOString()
        try {
          return await next(input)
        } catch (err) {
          const { info } = ctx
          const run = info.workflowExecution ?? { workflowId: '', runId: '' }
          if (run.runId === '') throw err // not a workflow's activity: nothing to trace
          // Webhook deliveries are internal, and their requests carry the signing secret.
          if (info.workflowType === WEBHOOK_WORKFLOW_TYPE) throw err
          const details = failureDetails(err instanceof Error ? err : new Error(String(err)))
          try {
            await store.writeAttempt(run.workflowId, run.runId, {
              activityId: info.activityId,
              attempt: info.attempt,
              status: err instanceof CancelledFailure ? 'canceled' : 'failed',
              startTime,
              endTime: new Date().toISOString(),
              error: { name: details.name ?? 'Error', message: details.message ?? '', retryable: details.retryable, cause: details.cause },
              ...(info.isLocal ? { input: input.args[0] ?? null } : {})
            })
          } catch (writeError) {
            // Never fail (or delay the retry of) a step because its trace could not be written.
            logger.warn(`Trace: could not record attempt ${info.attempt} of ${info.activityType} (run ${run.runId}): ${(writeError as Error).message}`)
          }
          throw err
        }
      }
    }
    return { inbound }
  }
}
