/**
 * Records every failed attempt of a step or evaluator (the engine's history keeps only the last
 * attempt). The record is queued and the failure goes to the engine at once: storage that is slow
 * or does not answer must not delay a retry or push an attempt past its timeout (write-queue.ts;
 * docs/traces.md says what a reader of the trace may then miss).
 */
import type { Info } from '@temporalio/activity'
import type { ActivityInboundCallsInterceptor, ActivityInterceptorsFactory } from '@temporalio/worker'
import { CancelledFailure } from '@temporalio/common'
import { failureDetails } from '@flowport/core/failure'
import type { AttemptRecord, TraceStore } from '@flowport/core/trace'
import type { TraceWriteQueue } from './write-queue.js'
import { WEBHOOK_WORKFLOW_TYPE } from '@flowport/core/contract'

/** The record of an attempt that failed with `err` (a local step's keeps its input: its marker has none). */
export function failedAttemptRecord (info: Info, startTime: string, err: unknown, input: unknown): AttemptRecord {
  const details = failureDetails(err instanceof Error ? err : new Error(String(err)))
  return {
    activityId: info.activityId,
    attempt: info.attempt,
    status: err instanceof CancelledFailure ? 'canceled' : 'failed',
    startTime,
    endTime: new Date().toISOString(),
    error: { name: details.name ?? 'Error', message: details.message ?? '', retryable: details.retryable, cause: details.cause },
    ...(info.isLocal ? { input } : {})
  }
}

export function attemptRecorder (store: TraceStore, queue: TraceWriteQueue): ActivityInterceptorsFactory {
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
          const record = failedAttemptRecord(info, startTime, err, input.args[0] ?? null)
          queue.push(`attempt ${info.attempt} of ${info.activityType} (run ${run.runId})`, async () => { await store.writeAttempt(run.workflowId, run.runId, record) })
          throw err
        }
      }
    }
    return { inbound }
  }
}
