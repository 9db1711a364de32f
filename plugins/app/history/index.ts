/**
 * History reads from the engine and the per-run hubs that share one long-poll between all
 * streams of a run (lib/history/hub.ts). `fastify.historyHubs.metrics` counts every upstream
 * history call, for tests and the benchmark.
 */
import fp from 'fastify-plugin'
import { HistoryHubs, type HubObserver } from '../../../lib/history/hubs.js'
import { nextEngineToken, type HistoryReader } from '../../../lib/history/reader.js'
import { mayEndWithUnstoredTask, persistedOnly, storedHistoryOf } from '../../../lib/history/unpersisted.js'

declare module 'fastify' {
  interface FastifyInstance {
    historyHubs: HistoryHubs
  }
}

/** Above the engine's own long-poll interval (20 s), which answers first with an empty page. */
const LONG_POLL_DEADLINE_MS = 70_000
/** Newest events each run's hub keeps for late joiners and reconnects. */
const BUFFER_EVENTS = 2000
/** A client further behind than this replays from the buffer or the engine instead of queueing. */
const MAX_QUEUED_EVENTS = 2000

export interface HistoryPluginOptions {
  /** The benchmark's seam (lib/history/hubs.ts); absent in production. */
  observer?: HubObserver
}

export default fp<HistoryPluginOptions>(async (fastify, opts) => {
  const namespace = fastify.config.TEMPORAL_NAMESPACE
  const read: HistoryReader = async ({ workflowId, runId, pageToken, wait, pageSize, signal }) => {
    const response = await fastify.engine.call(() => fastify.engine.client.workflowService.getWorkflowExecutionHistory({
      namespace,
      execution: { workflowId, runId },
      nextPageToken: pageToken,
      waitNewEvent: wait,
      maximumPageSize: pageSize ?? 0
    }), { signal, timeoutMs: wait ? LONG_POLL_DEADLINE_MS : undefined, workflowId, runId })
    const page = { events: response.history?.events ?? [], nextPageToken: response.nextPageToken ?? undefined }
    // The engine appends a transient or speculative workflow task only to the end of what it has
    // stored: a plain read's last page, or any long-poll answer (lib/history/unpersisted.ts).
    const lastPage = wait || nextEngineToken(page) === undefined
    if (!lastPage || !mayEndWithUnstoredTask(page.events, { newEventsAnswer: wait && pageToken !== undefined })) return page
    const { workflowExecutionInfo: info } = await fastify.engine.call(() => fastify.engine.client.workflowService.describeWorkflowExecution({
      namespace,
      execution: { workflowId, runId }
    }), { signal, workflowId, runId })
    return { ...page, events: persistedOnly(page.events, storedHistoryOf(info)) }
  }
  const hubs = new HistoryHubs(read, { bufferEvents: BUFFER_EVENTS, maxQueuedEvents: MAX_QUEUED_EVENTS }, opts.observer)
  fastify.decorate('historyHubs', hubs)
  // After the SSE plugin's preClose has ended the streams; this catches anything left.
  fastify.addHook('onClose', async () => { hubs.closeAll() })
}, { name: 'history-hubs', dependencies: ['engine'] })
