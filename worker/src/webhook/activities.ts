/**
 * The completion-webhook activities (worker/src/workflow/webhook.ts): wait for a run to close and
 * build its WorkflowResult, and POST it signed per Standard Webhooks (the `standardwebhooks`
 * package signs). No redirect is followed, and every address the receiver's name resolves to is
 * checked right before the connection (core/src/webhook-address.ts).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { request as httpRequest, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import { Context } from '@temporalio/activity'
import { WorkflowNotFoundError, type Client } from '@temporalio/client'
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common'
import type { temporal } from '@temporalio/proto'
import protoRoot from '@temporalio/proto'
import { Webhook } from 'standardwebhooks'
import { WEBHOOK_AWAIT_ACTIVITY, WEBHOOK_DELIVER_ACTIVITY, WEBHOOK_RUN_MEMO_KEY, type WebhookRunMemo } from '@flowport/core/contract'
import { closeOutcome, decodeFirstPayload } from '@flowport/core/outcome'
import type { TraceStore } from '@flowport/core/trace'
import { RUN_NEVER_STARTED, type AwaitRequest, type DeliverRequest, type WatchNext } from '../workflow/webhook.js'
import { refusalOf, type AddressPolicy } from '@flowport/core/webhook-address'
import { ReceiverCap } from './receiver-cap.js'

const { HistoryEventFilterType, WorkflowExecutionStatus } = protoRoot.temporal.api.enums.v1

type HistoryEvent = temporal.api.history.v1.IHistoryEvent

/** The statuses of a run that has not closed (a paused run is open too). */
const OPEN = new Set<number>([WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_PAUSED])

/**
 * One attempt's deadline for the whole exchange: resolving and connecting, sending, and reading the
 * status, headers and body. A hard deadline, not an idle timeout, so a receiver that trickles its
 * answer cannot stretch it; well below the deliver activity's 30 s start-to-close timeout
 * (worker/src/workflow/webhook.ts), so an attempt has ended before the engine could give up on it
 * and the workflow schedule the next one: one delivery holds at most one slot, for at most this long.
 */
const ATTEMPT_TIMEOUT_MS = 10_000

/** The most of an answer's body read: a longer body ends the attempt as failed (the answer was never complete). */
const MAX_ANSWER_BYTES = 64 * 1024

/** An answer whose body passed MAX_ANSWER_BYTES; the rest is never read. */
class AnswerTooLong extends Error {
  constructor (readonly status: number) {
    super(`The receiver answered ${status} with a body longer than ${MAX_ANSWER_BYTES} bytes`)
  }
}

export interface WebhookActivityOptions {
  client: Client
  /** Where traces go, for the body's `trace` (null: tracing is off). */
  store: TraceStore | null
  /** POSTs to one receiver at once from this worker, at most (receiver-cap.ts; default: no cap). */
  maxPerReceiver?: number
}

export function webhookActivities ({ client, store, maxPerReceiver = Infinity }: WebhookActivityOptions): Record<string, (arg: never) => Promise<unknown>> {
  const cap = new ReceiverCap(maxPerReceiver)
  return {
    [WEBHOOK_AWAIT_ACTIVITY]: async (request: AwaitRequest) => await lookForClose(client, store, request),
    [WEBHOOK_DELIVER_ACTIVITY]: async (request: DeliverRequest) => await deliver(request, cap)
  }
}

/**
 * "Nothing new yet, look again later": the await activity's attempt fails and the engine retries it
 * after its retry interval (worker/src/workflow/webhook.ts). Benign, as it is no fault: the SDK
 * logs it at debug level and counts it in no failure metric.
 */
const lookAgainLater = (message: string) =>
  ApplicationFailure.create({ type: 'WebhookRunOpen', message, category: ApplicationFailureCategory.BENIGN })

/**
 * One look at the run a delivery waits for: the body to deliver once the last run of its chain has
 * closed, the run to watch from now on when that changed (found, or continued as a run still open),
 * else a benign failure, so the engine looks again later and no worker waits meanwhile.
 */
async function lookForClose (client: Client, store: TraceStore | null, request: AwaitRequest): Promise<unknown> {
  const { workflowId } = request
  const end = await chainEnd(client, workflowId, request.runId ?? await runNaming(client, request))
  if (end.close === undefined) {
    if (end.runId === request.runId) throw lookAgainLater(`Run ${end.runId} of ${workflowId} is still open`)
    return { watch: end.runId } satisfies WatchNext
  }
  const converter = client.options.loadedDataConverter
  const [start] = (await history(client, { workflowId, runId: end.runId }, { maximumPageSize: 1 })).history?.events ?? []
  const input = await decodeFirstPayload(converter, start?.workflowExecutionStartedEventAttributes?.input)
  const outcome = await closeOutcome(converter, end.close)
  // The bucket named only once the trace is there, as a result names it (core/src/trace/store.ts): never a copy whose write failed.
  const trace = store === null ? null : { destinations: await store.writtenDestinations(workflowId, end.runId, Context.current().cancellationSignal) }
  return { kind: 'result', workflowId, runId: end.runId, workflowName: end.workflowName, input, trace, ...outcome }
}

const names = (memo: Record<string, unknown> | undefined, deliveryId: string) =>
  (memo?.[WEBHOOK_RUN_MEMO_KEY] as WebhookRunMemo | undefined)?.delivery === deliveryId

/**
 * The run of `workflowId` whose memo names this delivery. The API starts the delivery first, so
 * the run may not exist yet: until the deadline, that is a look again later. The latest run is read
 * directly (no visibility lag); a run already closed and followed by another run of the id is
 * found through visibility.
 */
async function runNaming (client: Client, { workflowId, deliveryId, runStartDeadline }: AwaitRequest): Promise<string> {
  const ctx = Context.current()
  const latest = await client.withAbortSignal(ctx.cancellationSignal, async () => await client.workflow.getHandle(workflowId).describe())
    .catch((err: unknown) => { if (err instanceof WorkflowNotFoundError) return undefined; throw err })
  if (latest !== undefined && names(latest.memo, deliveryId)) return latest.runId
  if (latest !== undefined) {
    const query = `WorkflowId = "${workflowId.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
    for await (const run of client.workflow.list({ query })) if (names(run.memo, deliveryId)) return run.runId
  }
  if (Date.now() >= runStartDeadline) {
    throw ApplicationFailure.create({ type: RUN_NEVER_STARTED, nonRetryable: true, message: `No run of ${workflowId} names delivery ${deliveryId}: the run was never started` })
  }
  throw lookAgainLater(`No run of ${workflowId} names delivery ${deliveryId} yet`)
}

/**
 * Where the chain that `runId` is part of stands, following every continue-as-new that has
 * happened: the run still open, or the last run with its close event; with its workflow type (the
 * describe's, which an existing run always has).
 */
async function chainEnd (client: Client, workflowId: string, runId: string): Promise<{ runId: string, workflowName: string, close?: HistoryEvent }> {
  const ctx = Context.current()
  for (;;) {
    // The status first: asked for the close event of an open run, the engine long-polls (about 20 s), which would hold the slot.
    const { workflowExecutionInfo } = await client.withAbortSignal(ctx.cancellationSignal, async () =>
      await client.workflowService.describeWorkflowExecution({ namespace: client.options.namespace, execution: { workflowId, runId } }))
    const workflowName = workflowExecutionInfo?.type?.name ?? ''
    if (OPEN.has(workflowExecutionInfo?.status ?? WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED)) return { runId, workflowName }
    const [close] = (await history(client, { workflowId, runId }, { historyEventFilterType: HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT })).history?.events ?? []
    const next = close?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId
    if (!next) return { runId, workflowName, close }
    runId = next
  }
}

async function history (client: Client, execution: { workflowId: string, runId: string }, request: { historyEventFilterType?: number, maximumPageSize?: number }) {
  const ctx = Context.current()
  return await client.withAbortSignal(ctx.cancellationSignal, async () => await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace, execution, skipArchival: true, ...request
  }))
}

const failure = (message: string, status: number | null = null) =>
  ApplicationFailure.create({ type: 'WebhookDeliveryError', message, details: [status], nonRetryable: true })

async function deliver (request: DeliverRequest, cap: ReceiverCap): Promise<{ status: number }> {
  const url = new URL(request.url)
  const policy = { allowLoopback: request.allowLoopback, allowLinkLocal: request.allowLinkLocal }
  const refusal = refusalOf(url.hostname, policy)
  if (refusal !== undefined) throw failure(`Refused: ${refusal}`)
  const release = cap.take(url.origin)
  if (release === undefined) {
    throw failure(`Not sent: ${cap.perReceiver} POSTs to ${url.origin} are under way from this worker, its most (ENGINE_MAX_WEBHOOK_DELIVERIES_PER_RECEIVER); tried again later`)
  }
  try {
    return await sendAttempt(url, request, policy)
  } finally {
    release()
  }
}

/** One attempt: the signed POST, within ATTEMPT_TIMEOUT_MS. */
async function sendAttempt (url: URL, request: DeliverRequest, policy: AddressPolicy): Promise<{ status: number }> {
  const timestamp = new Date()
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'flowport-webhook',
    'webhook-id': request.messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(request.secret).sign(request.messageId, timestamp, request.body)
  }
  // The activity's cancellation (the worker shutting down, the workflow canceled) ends the attempt at once too.
  const cancellation = Context.current().cancellationSignal
  const deadline = AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)
  let status: number
  try {
    status = await post(url, headers, request.body, guardedLookup(policy), AbortSignal.any([cancellation, deadline]))
  } catch (err) {
    if (cancellation.aborted) throw cancellation.reason
    if (deadline.aborted) throw failure(`No complete answer from the receiver within ${ATTEMPT_TIMEOUT_MS} ms`)
    if (err instanceof AnswerTooLong) throw failure(err.message, err.status)
    throw failure(`No answer from the receiver: ${(err as Error).message}`)
  }
  if (status >= 200 && status < 300) return { status }
  throw failure(`The receiver answered ${status}`, status)
}

/** A DNS lookup that fails for a name resolving to a refused address, so the connection never reaches it. */
function guardedLookup (policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0)
      const refused = addresses.map((a) => refusalOf(a.address, policy)).find((r) => r !== undefined)
      if (refused !== undefined) return callback(new Error(`Refused: ${hostname} resolves to ${refused}`), '', 0)
      if (options.all === true) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses)
      callback(null, addresses[0].address, addresses[0].family)
    })
  }
}

/**
 * One POST; resolves with the status code once the whole answer has been read, rejects once
 * `signal` aborts, wherever the exchange is, or once the body passes MAX_ANSWER_BYTES.
 */
async function post (url: URL, headers: Record<string, string>, body: string, lookup: LookupFunction, signal: AbortSignal): Promise<number> {
  const options: RequestOptions = { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup, signal }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest
  return await new Promise<number>((resolve, reject) => {
    const req = send(url, options, (res) => {
      let read = 0
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > MAX_ANSWER_BYTES) res.destroy(new AnswerTooLong(res.statusCode ?? 0))
      })
      res.on('end', () => { resolve(res.statusCode ?? 0) })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}
