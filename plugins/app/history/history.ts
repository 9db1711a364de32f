/**
 * The history service: pages of a run's events, the live stream, and the per-run hubs that share
 * one long-poll between all streams of a run (hubs.ts). `hubs.metrics` counts every upstream
 * history call, for tests and the benchmark.
 */
import type { HistoryPage } from '../../../schemas/history.js'
import type { StreamRegistry } from '../../external/sse/streams.js'
import type { Engine } from '../engine/index.js'
import { HistoryHubs, type HubObserver } from './hubs.js'
import { readHistoryPage, type PageRequest } from './page.js'
import { nextEngineToken, type HistoryReader } from './reader.js'
import type { Runs } from '../runs/index.js'
import { streamRun, type StreamRequest } from './stream.js'
import { mayEndWithUnstoredTask, persistedOnly } from './unpersisted.js'

/** Above the engine's own long-poll interval (20 s), which answers first with an empty page. */
const LONG_POLL_DEADLINE_MS = 70_000
/** Newest events each run's hub keeps for late joiners and reconnects. */
const BUFFER_EVENTS = 2000
/** A client further behind than this replays from the buffer or the engine instead of queueing. */
const MAX_QUEUED_EVENTS = 2000

export interface HistoryDeps {
  engine: Engine
  runs: Pick<Runs, 'describeRun' | 'readAttention'>
  /** The open SSE streams (plugins/external/sse/index.ts). */
  streams: StreamRegistry
  /** The benchmark's seam (hubs.ts); absent in production. */
  observer?: HubObserver
}

/** One page of a run's events from the engine, without a workflow task it has not stored. */
function engineReader (engine: Engine): HistoryReader {
  const { namespace } = engine
  return async ({ workflowId, runId, pageToken, wait, pageSize, signal }) => {
    const response = await engine.call(() => engine.client.workflowService.getWorkflowExecutionHistory({
      namespace,
      execution: { workflowId, runId },
      nextPageToken: pageToken,
      waitNewEvent: wait,
      maximumPageSize: pageSize ?? 0
    }), { signal, timeoutMs: wait ? LONG_POLL_DEADLINE_MS : undefined, workflowId, runId })
    const page = { events: response.history?.events ?? [], nextPageToken: response.nextPageToken ?? undefined }
    // The engine appends a transient or speculative workflow task only to the end of what it has
    // stored: a plain read's last page, or any long-poll answer (unpersisted.ts).
    const lastPage = wait || nextEngineToken(page) === undefined
    if (!lastPage || !mayEndWithUnstoredTask(page.events, { newEventsAnswer: wait && pageToken !== undefined })) return page
    const { workflowExecutionInfo: info } = await engine.call(() => engine.client.workflowService.describeWorkflowExecution({
      namespace,
      execution: { workflowId, runId }
    }), { signal, workflowId, runId })
    return { ...page, events: persistedOnly(page.events, info) }
  }
}

export function createHistory ({ engine, runs, streams, observer }: HistoryDeps) {
  const hubs = new HistoryHubs(engineReader(engine), { bufferEvents: BUFFER_EVENTS, maxQueuedEvents: MAX_QUEUED_EVENTS }, observer)
  return {
    hubs,
    /** One page of a run's history (GET /workflow/{id}/history and its pinned form). */
    page: async (request: PageRequest): Promise<HistoryPage> => await readHistoryPage({ runs, read: hubs.read }, request),
    /** One SSE session on a run (GET /workflow/{id}/history/stream and its pinned form). */
    stream: async (request: StreamRequest) => { await streamRun({ runs, hubs, streams }, request) },
    /** Stops every hub (after the SSE plugin's preClose has ended the streams). */
    close: () => { hubs.closeAll() }
  }
}

export type History = ReturnType<typeof createHistory>
