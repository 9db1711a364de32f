/**
 * Decorates `fastify.runs`, the runs service (./runs.ts); its caches are emptied on close.
 */
import fp from 'fastify-plugin'
import { createRuns, type Runs } from './runs.js'
import { decodeFirstValue, inlineOrLink } from '../../../lib/payloads.js'
import { readDelivery } from '../../../lib/webhooks.js'

declare module 'fastify' {
  interface FastifyInstance { runs: Runs }
}

export default fp(async (fastify) => {
  const runs = createRuns({
    engine: fastify.engine,
    catalogs: fastify.catalogs,
    traces: fastify.traces,
    payloads: { decodeFirst: decodeFirstValue.bind(undefined, fastify), inlineOrLink: inlineOrLink.bind(undefined, fastify) }, // wired at merge
    deliveryOf: readDelivery.bind(undefined, fastify), // wired at merge
    config: fastify.config
  })
  fastify.decorate('runs', runs)
  fastify.addHook('onClose', async () => { runs.close() })
}, { name: 'runs', dependencies: ['config', 'engine', 'catalog', 'traces', 'payloads'] })
