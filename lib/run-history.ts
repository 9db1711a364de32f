/**
 * The two history reads a result needs, always pinned to one run: its first event (the start
 * input) and its close event (the outcome), or one page holding both for a short run. The close
 * read can long-poll until the run closes; the caller's deadline and abort signal bound it, so no
 * engine call outlives its request.
 */
import type { FastifyInstance } from 'fastify'
// @temporalio/proto is CommonJS: its named exports are not visible to ESM.
import protoRoot from '@temporalio/proto'
import type { temporal } from '@temporalio/proto'
import { ApiError } from './api-error.js'
import { isCloseEvent, type HistoryEvent } from './close-events.js'
import { decodeFirstValue } from './payloads.js'

const { HistoryEventFilterType } = protoRoot.temporal.api.enums.v1

export interface RunRef { workflowId: string, runId: string }

export interface CloseWait {
  signal?: AbortSignal
  /** Epoch ms; when it passes the wait ends with `timedOut`. */
  deadline: number
}

const getHistory = (fastify: FastifyInstance, run: RunRef, request: Omit<temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryRequest, 'namespace' | 'execution'>) =>
  fastify.temporal.workflowService.getWorkflowExecutionHistory({
    namespace: fastify.temporal.options.namespace,
    execution: { workflowId: run.workflowId, runId: run.runId },
    skipArchival: true,
    ...request
  })

/**
 * Decodes the first value of a payload list; absent or `undefined` becomes null, and a large value
 * held by reference a LargeValue (lib/payloads.ts).
 */
export const decodeFirst = decodeFirstValue

export interface RunStart {
  /** The workflow type the run was started as. */
  type: string | undefined
  /** The first argument it was started with, or null. */
  input: unknown
}

async function startOf (fastify: FastifyInstance, first: HistoryEvent | undefined): Promise<RunStart> {
  const started = first?.workflowExecutionStartedEventAttributes
  return { type: started?.workflowType?.name ?? undefined, input: await decodeFirst(fastify, started?.input) }
}

/** What a run was started as and with: its first history event, the only one read. */
export async function readRunStart (fastify: FastifyInstance, run: RunRef, signal?: AbortSignal): Promise<RunStart> {
  const res = await fastify.engineCall(() => getHistory(fastify, run, { maximumPageSize: 1 }), { signal, ...run })
  return await startOf(fastify, res.history?.events?.[0])
}

/**
 * A history of at most this many events is read whole when a result needs both its first and its
 * close event: one engine call instead of two (a `hello` run has 11 events). Longer ones are not
 * fetched whole: their pages may carry every step's payloads (docs/performance.md).
 */
export const SHORT_HISTORY_EVENTS = 32

export interface StartAndClose { start: RunStart, closeEvent: HistoryEvent | null }

/**
 * The first event and the close event (null while open) of one run. The first page, of up to
 * SHORT_HISTORY_EVENTS events, is read; when it holds the whole history its last event is the close event,
 * otherwise the close event is read as `readCloseEvent` reads it.
 */
export async function readStartAndClose (fastify: FastifyInstance, run: RunRef, signal?: AbortSignal): Promise<StartAndClose> {
  const res = await fastify.engineCall(() => getHistory(fastify, run, { maximumPageSize: SHORT_HISTORY_EVENTS }), { signal, ...run })
  const events = res.history?.events ?? []
  const last = events.at(-1)
  const [start, closeEvent] = await Promise.all([
    startOf(fastify, events[0]),
    res.nextPageToken?.length ? readCloseEvent(fastify, run, signal) : last !== undefined && isCloseEvent(last) ? last : null
  ])
  return { start, closeEvent }
}

/** The start input of one run (the first argument it was started with), or null. */
export async function readRunInput (fastify: FastifyInstance, run: RunRef, signal?: AbortSignal): Promise<unknown> {
  return (await readRunStart(fastify, run, signal)).input
}

/** The close event of a closed run, without waiting; null while the run is open. */
export async function readCloseEvent (fastify: FastifyInstance, run: RunRef, signal?: AbortSignal): Promise<HistoryEvent | null> {
  const res = await fastify.engineCall(() => getHistory(fastify, run, {
    historyEventFilterType: HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT
  }), { signal, ...run })
  return res.history?.events?.[0] ?? null
}

export const timedOut = Symbol('timedOut')

/**
 * Long-polls the close event of one run until it arrives or `deadline` passes. The engine answers
 * an empty page when its own long-poll interval ends; the loop then asks again with the token.
 */
export async function waitForCloseEvent (fastify: FastifyInstance, run: RunRef, wait: CloseWait): Promise<HistoryEvent | typeof timedOut> {
  let nextPageToken: Uint8Array | undefined
  for (;;) {
    const remaining = wait.deadline - Date.now()
    if (remaining <= 0) return timedOut
    let res: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse
    try {
      res = await fastify.engineCall(() => getHistory(fastify, run, {
        waitNewEvent: true,
        historyEventFilterType: HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
        nextPageToken
      }), { signal: wait.signal, timeoutMs: remaining, ...run })
    } catch (err) {
      // The deadline of the call is the wait's own: the engine ran out of time, not the API.
      if (err instanceof ApiError && err.statusCode === 503 && Date.now() >= wait.deadline - 50) return timedOut
      throw err
    }
    const event = res.history?.events?.find(isCloseEvent)
    if (event) return event
    nextPageToken = res.nextPageToken?.length ? res.nextPageToken : undefined
  }
}
