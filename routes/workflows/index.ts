/**
 * The execution endpoints under /workflow, one file per concern. Static
 * segments (`/workflow/catalog`, `/workflow/run`, `/workflow/runs`, `/workflow/runs/stream`) win over `/workflow/:id` in
 * the router, so no workflow route shadows them.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import run from './run.js'
import start from './start.js'
import status from './status.js'
import result from './result.js'
import input from './input.js'
import runs from './runs.js'
import runsStream from './runs-stream.js'
import handlers from './handlers.js'
import control from './control.js'
import traceLog from './trace-log.js'
import reset from './reset.js'
import batch from './batch.js'

const workflows: FastifyPluginAsyncTypebox = async (fastify) => {
  for (const group of [run, start, status, result, input, runs, runsStream, handlers, control, reset, batch, traceLog]) await fastify.register(group)
}

export default workflows
