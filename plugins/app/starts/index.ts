/**
 * Decorates `fastify.starts`: starting runs from requests (./starts.ts).
 */
import fp from 'fastify-plugin'
import { createStarts, type Starts } from './starts.js'

declare module 'fastify' {
  interface FastifyInstance { starts: Starts }
}

export default fp(async (fastify) => {
  const { engine, catalogs, payloads, webhooks, runs, control, config } = fastify
  fastify.decorate('starts', createStarts({ engine, catalogs, payloads, webhooks, runs, control, config }))
}, { name: 'starts', dependencies: ['config', 'engine', 'catalogs', 'payloads', 'webhooks', 'runs', 'control'] })
