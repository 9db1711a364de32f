import fp from 'fastify-plugin'
import { createDeployments, type Deployments } from './deployments.js'

export type { ChangeOptions, Deployments, TaggedDeployment } from './deployments.js'

declare module 'fastify' {
  interface FastifyInstance { deployments: Deployments }
}

export default fp(async (fastify) => {
  fastify.decorate('deployments', createDeployments({ engine: fastify.engine }))
}, { name: 'deployments', dependencies: ['engine'] })
