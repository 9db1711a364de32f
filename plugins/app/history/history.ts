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
const BUFFER_EVENTS = 2000
/** A client further behind than this replays from the buffer or the engine instead of queueing. */
const MAX_QUEUED_EVENTS = 2000

export interface HistoryDeps {
  engine: Engine
  runs: Pick<Runs, 'describeRun' | 'readAttention'>
  streams: StreamRegistry
  observer?: HubObserver
}

/** Without a workflow task the engine has not stored (unpersisted.ts). */
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
    // The engine appends an unstored task only to a plain read's last page or to a long-poll answer.
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
    page: async (request: PageRequest): Promise<HistoryPage> => await readHistoryPage({ runs, read: hubs.read }, request),
    stream: async (request: StreamRequest) => { await streamRun({ runs, hubs, streams }, request) },
    /** After the SSE plugin's preClose has ended the streams. */
    close: () => { hubs.closeAll() }
  }
}

export type History = ReturnType<typeof createHistory>
