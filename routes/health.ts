/**
 * Liveness and readiness. Readiness asks the engine each time (with a short deadline), so it
 * turns 503 while Temporal is down and 200 again as soon as it answers, with no restart.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ApiError } from '../lib/api-error.js'
import { ref } from '../schemas/common.js'
import { HealthSchema, ReadinessSchema, type Readiness } from '../schemas/health.js'

const READY_CHECK_TIMEOUT_MS = 2000

const health: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/health', {
    config: { public: true },
    schema: { tags: ['health'], operationId: 'getHealth', summary: 'Liveness: 200 while the process is up', security: [], response: { 200: ref(HealthSchema) } }
  }, async () => ({ status: 'ok' as const }))

  fastify.get('/ready', {
    config: { public: true },
    schema: {
      tags: ['health'],
      operationId: 'getReadiness',
      summary: 'Readiness: 200 when the engine answers and the default catalog is published, else 503 with the reason',
      security: [],
      response: { 200: ref(ReadinessSchema), 503: ref(ReadinessSchema) }
    }
  }, async (request, reply) => {
    const result: Readiness = { status: 'unavailable', engine: false, catalog: false, reason: null }
    try {
      await fastify.engineCall(() => fastify.temporal.workflowService.getSystemInfo({}), { timeoutMs: READY_CHECK_TIMEOUT_MS })
      result.engine = true
      await fastify.catalogs.get(fastify.config.SERVICE_CATALOG_ID)
      result.catalog = true
      result.status = 'ready'
    } catch (err) {
      result.reason = err instanceof ApiError ? err.message : 'Readiness check failed'
      if (!(err instanceof ApiError)) request.log.warn({ err }, 'readiness check failed')
      reply.header('retry-after', '3')
      return reply.code(503).send(result)
    }
    return result
  })
}

export default health
