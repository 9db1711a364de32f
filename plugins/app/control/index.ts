import fp from 'fastify-plugin'
import { createControl, type Control } from './control.js'

export type { Control } from './control.js'
export { handlerArgs, handlerNameOf, type HandlerCall, type HandlerKind } from './handlers.js'
export { reapplyOptions } from './reset.js'

declare module 'fastify' {
  interface FastifyInstance { control: Control }
}

export default fp(async (fastify) => {
  fastify.decorate('control', createControl({ engine: fastify.engine, runs: fastify.runs, catalogs: fastify.catalogs, deployments: fastify.deployments, config: fastify.config }))
}, { name: 'control', dependencies: ['config', 'engine', 'runs', 'catalogs', 'deployments'] })
