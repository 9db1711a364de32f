import fp from 'fastify-plugin'
import { createWebhooks, type Webhooks } from './webhooks.js'

export { deliveryWorkflowId, webhookRunMemo, type Webhooks } from './webhooks.js'

declare module 'fastify' {
  interface FastifyInstance { webhooks: Webhooks }
}

export default fp(async (fastify) => {
  fastify.decorate('webhooks', createWebhooks({ engine: fastify.engine, config: fastify.config, log: fastify.log }))
}, { name: 'webhooks', dependencies: ['config', 'engine'] })
