/**
 * The two history reads a result needs, always pinned to one run: its first event (the start
 * input) and its close event (the outcome), or one page holding both for a short run. The close
 * read can long-poll until the run closes; the caller's deadline and abort signal bound it, so no
 * engine call outlives its request.
 */
// @temporalio/proto is CommonJS: its named exports are not visible to ESM.
import protoRoot from '@temporalio/proto'
import type { temporal } from '@temporalio/proto'
import type { RunRef } from '@flowport/core/run'
import { ApiError } from '../../../../lib/api-error.js'
import type { Payloads } from '../../payloads/index.js'
import type { Engine } from '../engine.js'
import { isCloseEvent, type HistoryEvent } from './close-events.js'

const { HistoryEventFilterType, WorkflowTaskFailedCause } = protoRoot.temporal.api.enums.v1

export interface CloseWait {
  signal?: AbortSignal
  /** Epoch ms; when it passes the wait ends with `timedOut`. */
  deadline: number
}

interface HistoryDeps {
  engine: Engine
  /** A payload list's first value (a LargeValue when held by reference: docs/large-payloads.md). */
  payloads: Pick<Payloads, 'decodeFirstValue'>
  /** Ids whose current run was last seen with a history longer than one page (plugins/app/runs/long-histories.ts). */
  longHistories: { has: (workflowId: string) => boolean, seen: (workflowId: string, long: boolean) => void }
}

type Reads = Pick<HistoryDeps, 'engine' | 'payloads'>

const getHistory = ({ engine }: Pick<HistoryDeps, 'engine'>, run: RunRef | { workflowId: string, runId?: undefined }, request: Omit<temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryRequest, 'namespace' | 'execution'>) =>
  engine.client.workflowService.getWorkflowExecutionHistory({
    namespace: engine.namespace,
    execution: { workflowId: run.workflowId, runId: run.runId },
    skipArchival: true,
    ...request
  })

export interface RunStart {
  /** The workflow type the run was started as. */
  type: string | undefined
  /** The first argument it was started with, or null. */
  input: unknown
}

async function startOf ({ payloads }: Pick<HistoryDeps, 'payloads'>, first: HistoryEvent | undefined): Promise<RunStart> {
  const started = first?.workflowExecutionStartedEventAttributes
  return { type: started?.workflowType?.name ?? undefined, input: await payloads.decodeFirstValue(started?.input) }
}

/** What a run was started as and with: its first history event, the only one read. */
export async function readRunStart (deps: Reads, run: RunRef, signal?: AbortSignal): Promise<RunStart> {
  const res = await deps.engine.call(() => getHistory(deps, run, { maximumPageSize: 1 }), { signal, ...run })
  return await startOf(deps, res.history?.events?.[0])
}

/**
 * A history of at most this many events is read whole when a result needs both its first and its
 * close event: one engine call instead of two (a `hello` run has 11 events). Longer ones are not
 * fetched whole: their pages may carry every step's payloads (docs/performance.md). It is also the
 * page size of a first page, which the engine counts in the batches events were written in (one
 * per transaction), not in events: such a page can hold more events, never more than this many
 * batches (measured: 123 events of an open run's 50 signals in one page).
 */
export const SHORT_HISTORY_EVENTS = 32

export interface StartAndClose { start: RunStart, closeEvent: HistoryEvent | null }

/**
 * The first event and the close event (null while open) of one run, which may be open. The first
 * page, of up to SHORT_HISTORY_EVENTS events, is read; when it holds the whole history its last
 * event is the close event, otherwise the close event is read as `readCloseEventIfClosed` reads it.
 */
export async function readStartAndClose (deps: Reads, run: RunRef, signal?: AbortSignal): Promise<StartAndClose> {
  const { events, whole } = await readFirstPage(deps, run, signal)
  const [start, closeEvent] = await Promise.all([
    startOf(deps, events[0]),
    whole ? lastIfClose(events) : readCloseEventIfClosed(deps, run, signal)
  ])
  return { start, closeEvent }
}

/** The first page of a run's history (the id's current run without `runId`), of SHORT_HISTORY_EVENTS batches at most, and whether it is the whole history. */
async function readFirstPage (deps: Pick<HistoryDeps, 'engine'>, run: RunRef | { workflowId: string, runId?: undefined }, signal?: AbortSignal): Promise<{ events: HistoryEvent[], whole: boolean }> {
  const res = await deps.engine.call(() => getHistory(deps, run, { maximumPageSize: SHORT_HISTORY_EVENTS }), { signal, ...run })
  return { events: res.history?.events ?? [], whole: !res.nextPageToken?.length }
}

/**
 * The id of the run a whole history belongs to: the run id its start event was written with, unless
 * a reset made the run. A reset copies the base run's events, start event included, and adds a
 * marker naming the new run; the newest marker names this one. Undefined when the start event does
 * not say (an engine older than the field).
 */
export function runIdOfHistory (events: HistoryEvent[]): string | undefined {
  const marker = events.findLast((e) => e.workflowTaskFailedEventAttributes?.cause === WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW)
  return marker?.workflowTaskFailedEventAttributes?.newRunId || events[0]?.workflowExecutionStartedEventAttributes?.originalExecutionRunId || undefined
}

const lastIfClose = (events: HistoryEvent[]): HistoryEvent | null => {
  const last = events.at(-1)
  return last !== undefined && isCloseEvent(last) ? last : null
}

export interface LatestPage extends StartAndClose {
  /** The run the page is of, when it can tell: when it is the whole history. */
  runId: string | undefined
  /** The status of an open run it is the whole history of, when the events tell it: `running` unless it was ever paused. */
  openStatus: 'running' | undefined
  /** Whether `start` is the first event of a run that a describe made after this read named. */
  startsRun: (runId: string) => boolean
}

/**
 * The first page of a workflow id's history (the engine reads the current run's): the raw client's
 * result makes this one call too. When it is the whole history it names the run
 * (`runIdOfHistory`) and holds its first and its close event. When it is not, a reset's
 * marker, which names the run, may lie beyond it; a run a describe names after this read is the
 * page's when the start event was written with that run's id (a run a reset made carries its
 * base's id there, and no run older than the page's can be current later). Undefined for an id the
 * engine does not know (the describe words that 404), and for one whose current run was last seen
 * long (plugins/app/runs/long-histories.ts): the describe comes first for those.
 */
export async function readLatestPage (deps: Pick<HistoryDeps, 'engine' | 'payloads' | 'longHistories'>, workflowId: string, signal?: AbortSignal): Promise<LatestPage | undefined> {
  if (deps.longHistories.has(workflowId)) return undefined
  const page = await readFirstPage(deps, { workflowId }, signal).catch((err: unknown) => {
    if (err instanceof ApiError && err.statusCode === 404) return undefined
    throw err
  })
  if (page === undefined) return undefined
  deps.longHistories.seen(workflowId, !page.whole)
  const runId = page.whole ? runIdOfHistory(page.events) : undefined
  const startedAs = page.events[0]?.workflowExecutionStartedEventAttributes?.originalExecutionRunId
  const closeEvent = page.whole ? lastIfClose(page.events) : null
  // A run that was ever paused is left to the describe, which knows whether it still is.
  const paused = page.events.some((e) => e.workflowExecutionPausedEventAttributes ?? e.workflowExecutionUnpausedEventAttributes)
  return {
    runId,
    openStatus: page.whole && closeEvent === null && !paused ? 'running' : undefined,
    start: await startOf(deps, page.events[0]),
    closeEvent,
    startsRun: (id) => runId === undefined ? Boolean(startedAs) && startedAs === id : runId === id
  }
}

/** The start input of one run (the first argument it was started with), or null. */
export async function readRunInput (deps: Reads, run: RunRef, signal?: AbortSignal): Promise<unknown> {
  return (await readRunStart(deps, run, signal)).input
}

/**
 * The close event of a run known to be closed (a describe said so). Never of a run that may be
 * open: the engine long-polls this read while the run is open, even without `waitNewEvent`, until
 * the run closes or the engine's long-poll interval (20 s) or the call's deadline ends
 * (docs/performance.md); `readCloseEventIfClosed` is for those.
 */
export async function readCloseEvent (deps: Pick<HistoryDeps, 'engine'>, run: RunRef, signal?: AbortSignal): Promise<HistoryEvent | null> {
  const res = await deps.engine.call(() => getHistory(deps, run, {
    historyEventFilterType: HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT
  }), { signal, ...run })
  return res.history?.events?.[0] ?? null
}

/**
 * The close event of a run that may still be open, without waiting; null while it is open. A
 * close event is always a run's last event: the history is read backwards, one page of one batch
 * (the engine pages by the batches events were written in), which the engine answers at once.
 */
export async function readCloseEventIfClosed ({ engine }: Pick<HistoryDeps, 'engine'>, run: RunRef, signal?: AbortSignal): Promise<HistoryEvent | null> {
  const res = await engine.call(() => engine.client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: engine.namespace, execution: run, maximumPageSize: 1
  }), { signal, ...run })
  const last = res.history?.events?.[0]
  return last !== undefined && isCloseEvent(last) ? last : null
}

export const timedOut = Symbol('timedOut')

/**
 * A wait with less time than this left ends without another long poll: the engine answers a call
 * whose deadline is a few milliseconds away with DEADLINE_EXCEEDED or, now and then, CANCELLED
 * (measured: 1 of 10 calls at 2 ms), which is no engine failure but the wait's own end.
 */
const WAIT_SLACK_MS = 50

/**
 * Long-polls the close event of one run until it arrives or `deadline` passes. The engine answers
 * an empty page when its own long-poll interval ends; the loop then asks again with the token.
 */
export async function waitForCloseEvent (deps: Pick<HistoryDeps, 'engine'>, run: RunRef, wait: CloseWait): Promise<HistoryEvent | typeof timedOut> {
  let nextPageToken: Uint8Array | undefined
  for (;;) {
    const remaining = wait.deadline - Date.now()
    if (remaining <= WAIT_SLACK_MS) return timedOut
    let res: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse
    try {
      res = await deps.engine.call(() => getHistory(deps, run, {
        waitNewEvent: true,
        historyEventFilterType: HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
        nextPageToken
      }), { signal: wait.signal, timeoutMs: remaining, ...run })
    } catch (err) {
      // The deadline of the call is the wait's own: the engine ran out of time, not the API.
      if (err instanceof ApiError && err.statusCode === 503 && Date.now() >= wait.deadline - WAIT_SLACK_MS) return timedOut
      throw err
    }
    const event = res.history?.events?.find(isCloseEvent)
    if (event) return event
    nextPageToken = res.nextPageToken?.length ? res.nextPageToken : undefined
  }
}
