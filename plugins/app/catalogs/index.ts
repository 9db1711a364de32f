import fp from 'fastify-plugin'
import { readRunStart } from '../engine/index.js'
import { createCatalogs, type Catalogs } from './catalogs.js'

export type { Catalogs } from './catalogs.js'
export { assertFitsDeclared, deliveryOf, entryOfType, notForDeclared, workflowTypeOf } from './declared.js'

declare module 'fastify' {
  interface FastifyInstance { catalogs: Catalogs }
}

export default fp(async (fastify) => {
  const catalogs = createCatalogs({
    engine: fastify.engine,
    config: fastify.config,
    log: fastify.log,
    readRunInput: async (run) => (await readRunStart({ engine: fastify.engine, payloads: fastify.payloads }, run)).input,
    // The API's own document exists once every route is registered: asked for at request time.
    apiDocument: () => fastify.swagger(),
    deployments: fastify.deployments
  })
  fastify.decorate('catalogs', catalogs)
  fastify.metrics?.cacheStats(() => catalogs.cacheStats)
}, { name: 'catalogs', dependencies: ['config', 'metrics', 'engine', 'payloads', 'deployments'] })
