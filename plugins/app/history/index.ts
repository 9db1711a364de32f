/**
 * The history concept (history.ts): `fastify.history`, its pages, its live streams and the per-run
 * hubs they share.
 */
import fp from 'fastify-plugin'
import { createHistory, type History } from './history.js'
import type { HubObserver } from './hubs.js'

declare module 'fastify' {
  interface FastifyInstance { history: History }
}

/** `observer`: the benchmark's seam (hubs.ts); absent in production. */
export default fp<{ observer?: HubObserver }>(async (fastify, opts) => {
  const history = createHistory({
    engine: fastify.engine,
    streams: fastify.openStreams,
    runs: fastify.runs,
    observer: opts.observer
  })
  fastify.decorate('history', history)
  // After the SSE plugin's preClose has ended the streams; this catches anything left.
  fastify.addHook('onClose', async () => { history.close() })
}, { name: 'history', dependencies: ['engine', 'sse', 'runs'] })
