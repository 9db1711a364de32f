import fp from 'fastify-plugin'
import { createSchedules, type Schedules } from './schedules.js'

export type { Schedules } from './schedules.js'

declare module 'fastify' {
  interface FastifyInstance { schedules: Schedules }
}

export default fp(async (fastify) => {
  fastify.decorate('schedules', createSchedules({
    engine: fastify.engine,
    defaultCatalog: fastify.config.SERVICE_CATALOG_ID,
    checkWorkflow: fastify.runStarter.checkedWorkflow,
    clientName: fastify.catalogs.clientName,
    typeFiltered: fastify.catalogs.typeFiltered
  }))
}, { name: 'schedules', dependencies: ['engine', 'run-starter', 'catalogs'] })
