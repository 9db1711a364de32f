/**
 * Decorates `fastify.deployments`, the rollout service (./deployments.ts): the engine's worker
 * deployments, which version new runs go to, ramps and rollbacks (docs/deploys.md).
 */
import fp from 'fastify-plugin'
import { createDeployments, type Deployments } from './deployments.js'

export type { ChangeOptions, Deployments, TaggedDeployment } from './deployments.js'

declare module 'fastify' {
  interface FastifyInstance { deployments: Deployments }
}

export default fp(async (fastify) => {
  fastify.decorate('deployments', createDeployments({ engine: fastify.engine }))
}, { name: 'deployments', dependencies: ['engine'] })
