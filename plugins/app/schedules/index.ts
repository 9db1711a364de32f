/**
 * The schedules concept (schedules.ts): `fastify.schedules`.
 */
import fp from 'fastify-plugin'
import { checkedWorkflow } from '../../../lib/start-workflow.js'
import { createSchedules, type Schedules } from './schedules.js'

declare module 'fastify' {
  interface FastifyInstance {
    schedules: Schedules
  }
}

export default fp(async (fastify) => {
  fastify.decorate('schedules', createSchedules({
    engine: fastify.engine,
    defaultCatalog: fastify.config.SERVICE_CATALOG_ID,
    // wired at merge
    checkWorkflow: async (catalog, workflowName, input, signal) => await checkedWorkflow(fastify, catalog, workflowName, input, signal)
  }))
}, { name: 'schedules', dependencies: ['engine', 'catalog'] })
