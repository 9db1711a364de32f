/** Static segments (`/workflow/catalog`, `/workflow/run`, `/workflow/runs`) win over `/workflow/:id` in the router. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import start from './start.js'
import runReads from './run-reads.js'
import runs from './runs.js'
import handlers from './handlers.js'
import control from './control.js'
import versioning from './versioning.js'
import batch from './batch.js'
import traceLog from './trace-log.js'

const workflows: FastifyPluginAsyncTypebox = async (fastify) => {
  for (const group of [start, runReads, runs, handlers, control, versioning, batch, traceLog]) await fastify.register(group)
}

export default workflows
