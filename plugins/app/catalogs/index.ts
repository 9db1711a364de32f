/**
 * Decorates `fastify.catalogs`: the published catalogs and their workers (./catalogs.ts).
 */
import fp from 'fastify-plugin'
import { readRunInput } from '../../../lib/run-history.js'
import { createCatalogs, type Catalogs } from './catalogs.js'

declare module 'fastify' {
  interface FastifyInstance { catalogs: Catalogs }
}

export default fp(async (fastify) => {
  fastify.decorate('catalogs', createCatalogs({
    engine: fastify.engine,
    config: fastify.config,
    log: fastify.log,
    // wired at merge
    readRunInput: async (run) => await readRunInput(fastify, run),
    apiDocument: () => fastify.swagger()
  }))
}, { name: 'catalogs', dependencies: ['config', 'engine', 'swagger'] })
