/**
 * History reads pinned to one run. The close read can long-poll until the run closes; the caller's
 * deadline and signal bound it, so no engine call outlives its request.
 */
// @temporalio/proto is CommonJS: its named exports are not visible to ESM.
import protoRoot from '@temporalio/proto'
import type { temporal } from '@temporalio/proto'
import type { RunRef } from '@flowport/core/run'
import { ApiError, ifNotFound } from '../../../../lib/api-error.js'
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
  payloads: Pick<Payloads, 'decodeFirstValue'>
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
  type: string | undefined
  input: unknown
  /** Its catalog, which names its workflow type for clients; undefined when `type` is that name already. */
  taskQueue?: string
}

async function startOf ({ payloads }: Pick<HistoryDeps, 'payloads'>, first: HistoryEvent | undefined): Promise<RunStart> {
  const started = first?.workflowExecutionStartedEventAttributes
  return { type: started?.workflowType?.name ?? undefined, input: await payloads.decodeFirstValue(started?.input), taskQueue: started?.taskQueue?.name ?? undefined }
}

export async function readRunStart (deps: Reads, run: RunRef, signal?: AbortSignal): Promise<RunStart> {
  const res = await deps.engine.call(() => getHistory(deps, run, { maximumPageSize: 1 }), { signal, ...run })
  return await startOf(deps, res.history?.events?.[0])
}

/**
 * A history this short is read whole when a result needs its first and close event: one call, not
 * two (a `hello` run has 11 events); longer pages may carry every step's payloads. As a page size,
 * the engine counts write batches, not events (measured: 123 events in one page).
 */
export const SHORT_HISTORY_EVENTS = 32

export interface StartAndClose { start: RunStart, closeEvent: HistoryEvent | null }

/** The close event is null while open; taken from the first page when that is the whole history. */
export async function readStartAndClose (deps: Reads, run: RunRef, signal?: AbortSignal): Promise<StartAndClose> {
  const { events, whole } = await readFirstPage(deps, run, signal)
  const [start, closeEvent] = await Promise.all([
    startOf(deps, events[0]),
    whole ? lastIfClose(events) : readCloseEventIfClosed(deps, run, signal)
  ])
  return { start, closeEvent }
}

/** Without `runId`: the id's current run. */
async function readFirstPage (deps: Pick<HistoryDeps, 'engine'>, run: RunRef | { workflowId: string, runId?: undefined }, signal?: AbortSignal): Promise<{ events: HistoryEvent[], whole: boolean }> {
  const res = await deps.engine.call(() => getHistory(deps, run, { maximumPageSize: SHORT_HISTORY_EVENTS }), { signal, ...run })
  return { events: res.history?.events ?? [], whole: !res.nextPageToken?.length }
}

/**
 * A reset copies the base run's events, start event included, and adds a marker naming the new
 * run: the newest marker names this one. Undefined from an engine older than the field.
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
  /** `running` when the whole history shows it open and never paused. */
  openStatus: 'running' | undefined
  /** Whether `start` is the first event of a run that a describe made after this read named. */
  startsRun: (runId: string) => boolean
}

/**
 * The first page of the id's current run. A page that is not the whole history may miss the reset
 * marker naming its run; a run a describe names later is the page's when its start event was
 * written with that run's id. Undefined for an unknown id, and for an id last seen with a long
 * history (plugins/app/runs/long-histories.ts): the describe comes first for those.
 */
export async function readLatestPage (deps: Pick<HistoryDeps, 'engine' | 'payloads' | 'longHistories'>, workflowId: string, signal?: AbortSignal): Promise<LatestPage | undefined> {
  if (deps.longHistories.has(workflowId)) return undefined
  const page = await readFirstPage(deps, { workflowId }, signal).catch(ifNotFound(undefined))
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

/**
 * Only for a run known closed: while it is open the engine long-polls this read, even without
 * `waitNewEvent`, for up to 20 s (docs/performance.md); `readCloseEventIfClosed` is for those.
 */
export async function readCloseEvent (deps: Pick<HistoryDeps, 'engine'>, run: RunRef, signal?: AbortSignal): Promise<HistoryEvent | null> {
  const res = await deps.engine.call(() => getHistory(deps, run, {
    historyEventFilterType: HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT
  }), { signal, ...run })
  return res.history?.events?.[0] ?? null
}

/** Null while open, without waiting: the close event is last, so it leads a reverse read's page (a whole batch, answered at once). */
export async function readCloseEventIfClosed ({ engine }: Pick<HistoryDeps, 'engine'>, run: RunRef, signal?: AbortSignal): Promise<HistoryEvent | null> {
  const res = await engine.call(() => engine.client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: engine.namespace, execution: run, maximumPageSize: 1
  }), { signal, ...run })
  const last = res.history?.events?.[0]
  return last !== undefined && isCloseEvent(last) ? last : null
}

export const timedOut = Symbol('timedOut')

/** Less time left ends the wait: a call a few ms from its deadline may answer DEADLINE_EXCEEDED or CANCELLED (measured: 1 of 10 at 2 ms). */
const WAIT_SLACK_MS = 50

/** The engine answers an empty page when its own long-poll interval ends; the loop asks again. */
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
