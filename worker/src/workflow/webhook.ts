/**
 * The completion-webhook delivery workflow, one per run that asked for a webhook, started by the API
 * before the run: an activity finds the run and waits for its close (holding no worker slot), another
 * POSTs the body, retried after durable timers; every attempt updates the memo's DeliveryRecord, which
 * the API's status endpoint reports. The steps and their bounds: docs/webhooks.md, "Where delivery
 * runs" and "Waiting for the close".
 */
import { ActivityFailure, ApplicationFailure, patched, proxyActivities, sleep, upsertMemo, workflowInfo, type ActivityOptions } from '@temporalio/workflow'
import {
  WEBHOOK_AWAIT_ACTIVITY, WEBHOOK_DELIVER_ACTIVITY, WEBHOOK_DELIVERY_MEMO_KEY, webhookDeliveryQueue, type DeliveryRecord, type WebhookDeliveryInput
} from '@flowport/core/contract'

export interface DeliverRequest {
  url: string
  secret: string
  messageId: string
  /** The JSON body, serialized once so every attempt sends (and signs) the same bytes. */
  body: string
  allowLoopback: boolean
  allowLinkLocal: boolean
}

/** What the await activity is asked: the run to watch, or (runId absent) the delivery id its memo names and until when to look for it. */
export interface AwaitRequest {
  workflowId: string
  runId?: string
  deliveryId: string
  /** Epoch ms. */
  runStartDeadline: number
}

/**
 * What the await activity answers when the run to watch has changed: it found the run that names
 * this delivery, or the watched run continued as this one, still open. Otherwise it answers the
 * body to deliver, once the chain's last run has closed.
 */
export interface WatchNext { watch: string }

/** The failure type of the await activity when no run named this delivery in time. */
export const RUN_NEVER_STARTED = 'WebhookRunNeverStarted'

/**
 * The longest pause between two looks at an open run (reached after about a minute): the most a
 * delivery lags behind a run's close, and why an open run costs the engine one look per 30 s.
 */
const MAX_LOOK_INTERVAL = '30 s'

const FIRST_RETRY_MS = 1000
const MAX_RETRY_MS = 10 * 60 * 1000
/** Default for `runStartWithinMs`: the API starts the run right after the delivery, this leaves ample room for a slow engine. */
const RUN_START_WITHIN_MS = 10 * 60 * 1000

/** Answers the body to deliver or a WatchNext. */
type AwaitClose = (request: AwaitRequest) => Promise<unknown>
type Deliver = (request: DeliverRequest) => Promise<{ status: number }>

const { [WEBHOOK_AWAIT_ACTIVITY]: awaitClose } = proxyActivities<Record<string, AwaitClose>>({
  // An attempt is one look (a few engine reads) that fails while there is nothing new; the engine's
  // retry timer, not a worker, waits until the next look, and retries add no history events. No
  // attempt limit and no schedule-to-close timeout: a run may stay open for as long as it likes.
  startToCloseTimeout: '30 s',
  retry: { initialInterval: '1 s', backoffCoefficient: 2, maximumInterval: MAX_LOOK_INTERVAL }
})

const isWatchNext = (answer: unknown): answer is WatchNext => typeof answer === 'object' && answer !== null && 'watch' in answer

const DELIVER_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 s',
  // Retries are this workflow's own (below): each one is recorded in the memo.
  retry: { maximumAttempts: 1 }
}

/**
 * The POST runs on the catalog's delivery queue, whose slots are its own: a thousand receivers
 * that trickle their answers once took every step slot of the catalog (bench/RESULTS.md, scale).
 * Deliveries started before this change replay with their POSTs on the catalog's queue.
 */
const DELIVERY_QUEUE_PATCH = 'flowport-webhook-delivery-queue'
function deliverer (catalogQueue: string): Deliver {
  const options = patched(DELIVERY_QUEUE_PATCH) ? { ...DELIVER_OPTIONS, taskQueue: webhookDeliveryQueue(catalogQueue) } : DELIVER_OPTIONS
  return proxyActivities<Record<string, Deliver>>(options)[WEBHOOK_DELIVER_ACTIVITY]!
}

export async function webhookWorkflow (input: WebhookDeliveryInput): Promise<DeliveryRecord> {
  const info = workflowInfo()
  const runStartDeadline = info.startTime.getTime() + (input.runStartWithinMs ?? RUN_START_WITHIN_MS)
  let runId = input.runId
  let result: unknown
  try {
    // One activity per run of the chain (found, then each continue-as-new still open when seen): few events, whatever the wait.
    for (;;) {
      const answer = await awaitClose({ workflowId: input.workflowId, runId, deliveryId: info.workflowId, runStartDeadline })
      if (!isWatchNext(answer)) {
        result = answer
        break
      }
      runId = answer.watch
    }
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
    body: JSON.stringify(input.workflowName === undefined ? result : { ...(result as object), workflowName: input.workflowName }),
    allowLoopback: input.allowLoopback,
    allowLinkLocal: input.allowLinkLocal
  }
  const deliver = deliverer(info.taskQueue)
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
