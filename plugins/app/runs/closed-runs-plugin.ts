/**
 * Decorates `fastify.closedRuns`: the answers of the read endpoints for runs that can no longer
 * change (lib/closed-runs.ts), bounded by the SERVICE_CLOSED_RUN_CACHE_* settings.
 */
import fp from 'fastify-plugin'
import { ClosedRuns } from '../../../lib/closed-runs.js'

declare module 'fastify' {
  interface FastifyInstance {
    closedRuns: ClosedRuns
  }
}

export default fp(async (fastify) => {
  const { config } = fastify
  fastify.decorate('closedRuns', new ClosedRuns({
    maxEntries: config.SERVICE_CLOSED_RUN_CACHE_ENTRIES,
    maxBytes: config.SERVICE_CLOSED_RUN_CACHE_BYTES,
    ttlMs: config.SERVICE_CLOSED_RUN_CACHE_TTL_MS
  }))
  fastify.addHook('onClose', async () => { fastify.closedRuns.clear() })
}, { name: 'closedRuns', dependencies: ['config'] })
