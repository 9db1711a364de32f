/**
 * Decorates `fastify.starts`: starting runs from requests (./starts.ts).
 */
import fp from 'fastify-plugin'
import { createStarts, type Starts } from './starts.js'

declare module 'fastify' {
  interface FastifyInstance { starts: Starts }
}

export default fp(async (fastify) => {
  fastify.decorate('starts', createStarts({
    engine: fastify.engine,
    catalogs: fastify.catalogs,
    payloads: fastify.payloads,
    webhooks: fastify.webhooks,
    runs: fastify.runs,
    control: fastify.control,
    config: fastify.config
  }))
}, { name: 'starts', dependencies: ['config', 'engine', 'catalogs', 'payloads', 'webhooks', 'runs', 'control'] })
