/**
 * The completion-webhook delivery workflow (docs/webhooks.md). The API starts one per run that
 * asked for a webhook, on the run's catalog, before it starts the run (whose memo names this
 * workflow); it lives on the engine, so neither an API process nor a worker has to stay up for the
 * delivery to happen:
 *
 * 1. an activity finds the run whose memo names this workflow (waiting up to `runStartWithinMs`
 *    for it to be started; none by then: the API stopped between the two starts, this workflow
 *    fails and nothing is delivered), waits for it (and the runs it continues as) to close,
 *    however it closes, and builds the body: the run's WorkflowResult;
 * 2. another activity POSTs it, signed per Standard Webhooks; a failed attempt is retried after a
 *    durable timer, 1 s, 2 s, 4 s … at most 10 min apart, with the same `webhook-id`, until
 *    `retryForMs` has passed since the first attempt.
 *
 * Every attempt updates the memo's DeliveryRecord, which the API's status endpoint reports.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities, sleep, upsertMemo, workflowInfo } from '@temporalio/workflow'
import {
  WEBHOOK_AWAIT_ACTIVITY, WEBHOOK_DELIVER_ACTIVITY, WEBHOOK_DELIVERY_MEMO_KEY, type DeliveryRecord, type WebhookDeliveryInput
} from '../contract.js'

export interface DeliverRequest {
  url: string
  secret: string
  messageId: string
  /** The JSON body, serialized once so every attempt sends (and signs) the same bytes. */
  body: string
  allowLoopback: boolean
  allowLinkLocal: boolean
}

/** What the await activity is asked: the run, or (runId absent) the delivery id its memo names and until when to look for it. */
export interface AwaitRequest {
  workflowId: string
  runId?: string
  deliveryId: string
  /** Epoch ms. */
  runStartDeadline: number
}

/** The failure type of the await activity when no run named this delivery in time. */
export const RUN_NEVER_STARTED = 'WebhookRunNeverStarted'

const FIRST_RETRY_MS = 1000
const MAX_RETRY_MS = 10 * 60 * 1000
/** Default for `runStartWithinMs`: the API starts the run right after the delivery, this leaves ample room for a slow engine. */
const RUN_START_WITHIN_MS = 10 * 60 * 1000

type AwaitClose = (request: AwaitRequest) => Promise<unknown>
type Deliver = (request: DeliverRequest) => Promise<{ status: number }>

const { [WEBHOOK_AWAIT_ACTIVITY]: awaitClose } = proxyActivities<Record<string, AwaitClose>>({
  // The activity long-polls the engine and heartbeats between polls; a worker that dies is noticed
  // within the heartbeat timeout and the wait resumes on another.
  startToCloseTimeout: '3650 days',
  heartbeatTimeout: '60 s',
  retry: { initialInterval: '1 s', maximumInterval: '30 s' }
})

const { [WEBHOOK_DELIVER_ACTIVITY]: deliver } = proxyActivities<Record<string, Deliver>>({
  startToCloseTimeout: '30 s',
  // Retries are this workflow's own (below): each one is recorded in the memo.
  retry: { maximumAttempts: 1 }
})

export async function webhookWorkflow (input: WebhookDeliveryInput): Promise<DeliveryRecord> {
  const info = workflowInfo()
  let result: unknown
  try {
    result = await awaitClose({
      workflowId: input.workflowId,
      runId: input.runId,
      deliveryId: info.workflowId,
      runStartDeadline: info.startTime.getTime() + (input.runStartWithinMs ?? RUN_START_WITHIN_MS)
    })
  } catch (err) {
    const cause = err instanceof ActivityFailure ? err.cause : err
    // Failed, not completed: a retry of the start with the same Idempotency-Key may start this id again.
    if (cause instanceof ApplicationFailure && cause.type === RUN_NEVER_STARTED) throw ApplicationFailure.nonRetryable(cause.message, RUN_NEVER_STARTED)
    throw err
  }
  const request: DeliverRequest = {
    url: input.url,
    secret: input.secret,
    messageId: input.messageId,
    body: JSON.stringify(result),
    allowLoopback: input.allowLoopback,
    allowLinkLocal: input.allowLinkLocal
  }
  const record: DeliveryRecord = { state: 'pending', attempts: 0, lastResponseStatus: null, lastError: null, deliveredAt: null }
  const firstAttempt = Date.now()
  let delay = FIRST_RETRY_MS
  for (;;) {
    record.attempts++
    try {
      const { status } = await deliver(request)
      Object.assign(record, { state: 'delivered', lastResponseStatus: status, lastError: null, deliveredAt: new Date().toISOString() })
      upsertMemo({ [WEBHOOK_DELIVERY_MEMO_KEY]: record })
      return record
    } catch (err) {
      const cause = err instanceof ActivityFailure ? err.cause : err
      const status = cause instanceof ApplicationFailure ? cause.details?.[0] : undefined
      record.lastResponseStatus = typeof status === 'number' ? status : null
      record.lastError = cause instanceof Error ? cause.message : String(cause)
    }
    if (Date.now() + delay - firstAttempt > input.retryForMs) {
      record.state = 'failed'
      upsertMemo({ [WEBHOOK_DELIVERY_MEMO_KEY]: record })
      return record
    }
    upsertMemo({ [WEBHOOK_DELIVERY_MEMO_KEY]: record })
    await sleep(delay)
    delay = Math.min(delay * 2, MAX_RETRY_MS)
  }
}
