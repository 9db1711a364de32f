import fp from 'fastify-plugin'
import { createRunStarter, type RunStarter } from './run-starter.js'
import { fixedWorkflowSegment } from './start-workflow.js'

export type { RunStarter } from './run-starter.js'

declare module 'fastify' {
  interface FastifyInstance { runStarter: RunStarter }
}

export default fp(async (fastify) => {
  const { engine, catalogs, payloads, webhooks, runs, control, config } = fastify
  // Filled as the routes register (after this plugin), so the reserved ids are whatever the routes take, not a list to keep.
  const reservedIds = new Set<string>()
  fastify.addHook('onRoute', (route) => {
    const segment = fixedWorkflowSegment(route.url)
    if (segment !== undefined) reservedIds.add(segment)
  })
  fastify.decorate('runStarter', createRunStarter({ engine, catalogs, payloads, webhooks, runs, control, config, reservedIds }))
}, { name: 'run-starter', dependencies: ['config', 'engine', 'catalogs', 'payloads', 'webhooks', 'runs', 'control'] })
