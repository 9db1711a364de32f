/**
 * Decorates `fastify.starts`: starting runs from requests (./starts.ts).
 */
import fp from 'fastify-plugin'
import { createStarts, type Starts } from './starts.js'
import { fixedWorkflowSegment } from './start-workflow.js'

export type { Starts } from './starts.js'

declare module 'fastify' {
  interface FastifyInstance { starts: Starts }
}

export default fp(async (fastify) => {
  const { engine, catalogs, payloads, webhooks, runs, control, config } = fastify
  // Filled as the routes register (after this plugin), so the reserved ids are whatever the routes take, not a list to keep.
  const reservedIds = new Set<string>()
  fastify.addHook('onRoute', (route) => {
    const segment = fixedWorkflowSegment(route.url)
    if (segment !== undefined) reservedIds.add(segment)
  })
  fastify.decorate('starts', createStarts({ engine, catalogs, payloads, webhooks, runs, control, config, reservedIds }))
}, { name: 'starts', dependencies: ['config', 'engine', 'catalogs', 'payloads', 'webhooks', 'runs', 'control'] })
