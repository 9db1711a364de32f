import fp from 'fastify-plugin'
import { createRuns, type Runs } from './runs.js'

export { STATUS_LOOKUPS, historyWorkflowOf } from './execution.js'
export { visibilityQuery } from './list-runs.js'
export type { Runs } from './runs.js'
export type { Execution } from './types.js'

declare module 'fastify' {
  interface FastifyInstance { runs: Runs }
}

export default fp(async (fastify) => {
  const { engine, catalogs, traces, payloads, webhooks, config } = fastify
  const runs = createRuns({ engine, catalogs, traces, payloads, deliveryOf: webhooks.readDelivery, config })
  fastify.decorate('runs', runs)
  fastify.addHook('onClose', async () => { runs.close() })
}, { name: 'runs', dependencies: ['config', 'engine', 'catalogs', 'traces', 'payloads', 'webhooks'] })
