/**
 * Liveness and readiness. Readiness asks the engine each time (with a short deadline), so it
 * turns 503 while Temporal is down and 200 again as soon as it answers, with no restart. It also
 * says which catalogs have no worker, the reason runs would sit in `running` without progress.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { DELIVERIES_TASK_QUEUE } from '@flowport/core/contract'
import { ApiError, RETRY_AFTER_SECONDS } from '../lib/api-error.js'
import { errorsFor, response } from '../schemas/common.js'
import { HealthSchema, ReadinessSchema, type Readiness } from '../schemas/health.js'

const READY_CHECK_TIMEOUT_MS = 2000

const health: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/health', {
    config: { public: true },
    schema: {
      tags: ['health'],
      operationId: 'getHealth',
      summary: 'Liveness: 200 while the process is up',
      security: [],
      // 400: only a request without Host (HTTP/1.1) or another malformed request.
      response: { 200: response(HealthSchema, 'The process is up'), ...errorsFor(400) }
    }
  }, async () => ({ status: 'ok' as const }))

  /** Best effort: every published catalog and its workers, described together; a catalog whose description fails is left out. */
  async function catalogStates (): Promise<Readiness['catalogs']> {
    const signal = AbortSignal.timeout(READY_CHECK_TIMEOUT_MS)
    const ids = await fastify.catalogs.published(signal)
    // allSettled: every call has ended when this returns, so none outlives the response.
    const described = await Promise.allSettled(ids.map(async (catalog) => ({ catalog, workers: await fastify.catalogs.workers(catalog, signal) })))
    return described.flatMap((d) => (d.status === 'fulfilled' ? [d.value] : []))
  }

  fastify.get('/ready', {
    config: { public: true },
    schema: {
      tags: ['health'],
      operationId: 'getReadiness',
      summary: 'Readiness: 200 when the engine answers, the default catalog is published and a worker polls it; else 503 with the reason',
      security: [],
      response: {
        ...errorsFor(400),
        200: response(ReadinessSchema, 'Ready; `catalogs` lists every published catalog and whether a worker polls it'),
        503: response(ReadinessSchema, 'Not ready: `reason` says why (the engine is unreachable, the default catalog is not published, or no worker polls it); `Retry-After` is set')
      }
    }
  }, async (request, reply) => {
    const result: Readiness = { status: 'unavailable', engine: false, catalog: false, workers: false, deliveryWorker: false, catalogs: [], reason: null }
    const signal = AbortSignal.timeout(READY_CHECK_TIMEOUT_MS)
    const catalogId = fastify.config.SERVICE_CATALOG_ID
    try {
      await fastify.engine.call(() => fastify.engine.client.workflowService.getSystemInfo({}), { timeoutMs: READY_CHECK_TIMEOUT_MS })
      result.engine = true
      // Sequential (each answer is cached briefly): no engine call outlives the response.
      await fastify.catalogs.get(catalogId, signal).then(() => { result.catalog = true }, (err: unknown) => { result.reason = reasonOf(err) })
      result.workers = (await fastify.catalogs.workers(catalogId, signal)).polling
      // The list informs; it never decides readiness (its cost grows with the number of catalogs).
      result.catalogs = await catalogStates().catch(() => [])
      result.deliveryWorker = await fastify.catalogs.workers(DELIVERIES_TASK_QUEUE, signal).then((w) => w.polling, () => false)
      if (result.catalog && !result.workers) result.reason = `No worker polls catalog ${catalogId}: start a worker with SERVICE_CATALOG_ID=${catalogId}`
      if (result.catalog && result.workers) result.status = 'ready'
    } catch (err) {
      result.reason ??= reasonOf(err)
      if (!(err instanceof ApiError)) request.log.warn({ err }, 'readiness check failed')
    }
    if (result.status === 'ready') return result
    reply.header('retry-after', RETRY_AFTER_SECONDS)
    return reply.code(503).send(result)
  })
}

function reasonOf (err: unknown): string {
  return err instanceof ApiError ? err.message : 'Readiness check failed: the engine did not answer in time'
}

export default health
