import fp from 'fastify-plugin'
import { createHistory, type History } from './history.js'
import type { HubObserver } from './hubs.js'

declare module 'fastify' {
  interface FastifyInstance { history: History }
}

export default fp<{ observer?: HubObserver }>(async (fastify, opts) => {
  const history = createHistory({
    engine: fastify.engine,
    streams: fastify.openStreams,
    runs: fastify.runs,
    observer: opts.observer
  })
  fastify.decorate('history', history)
  fastify.metrics?.gauge('flowport_history_hubs_live', 'Runs followed by at least one stream now (one shared upstream long-poll each)', () => history.hubs.size)
  fastify.metrics?.gauge('flowport_history_long_polls_in_flight', 'Upstream history long-polls open now, each shared by every stream of its run',
    () => history.hubs.metrics.longPollsInFlight)
  fastify.addHook('onClose', async () => { history.close() })
}, { name: 'history', dependencies: ['metrics', 'engine', 'sse', 'runs'] })
