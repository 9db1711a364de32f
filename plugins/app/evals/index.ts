import fp from 'fastify-plugin'
import { createEvals, type Evals } from './evals.js'

declare module 'fastify' {
  interface FastifyInstance { evals: Evals }
}

export default fp(async (fastify) => {
  const { engine, catalogs, config } = fastify
  fastify.decorate('evals', createEvals({ engine, catalogs, config }))
}, { name: 'evals', dependencies: ['config', 'engine', 'catalogs'] })
