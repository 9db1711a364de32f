/**
 * Execution history: paginated pages and the live SSE stream (docs/architecture.md, "The history stream").
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import history from './history.js'
import stream from './stream.js'

const historyRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  await fastify.register(history)
  await fastify.register(stream)
}

export default historyRoutes
