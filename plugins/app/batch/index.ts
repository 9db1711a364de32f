import fp from 'fastify-plugin'
import { createBatch, type Batches } from './batch.js'

declare module 'fastify' {
  interface FastifyInstance { batch: Batches }
}

export default fp(async (fastify) => {
  fastify.decorate('batch', createBatch({ engine: fastify.engine }))
}, { name: 'batch', dependencies: ['engine'] })
