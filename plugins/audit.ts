/**
 * Who did what: one log line per call that acts on runs (every route whose scope is not `read`):
 * `{audit: true, keyId, action, workflowId, runId, outcome}`. `action` is the route's operationId,
 * `outcome` the status code and, for a failure, the error name. The engine records the same key as
 * the call's `identity` (plugins/temporal.ts `temporalAs`).
 */
import fp from 'fastify-plugin'
import type { FastifyRequest } from 'fastify'

interface Acted { workflowId?: string, runId?: string, error?: string }

declare module 'fastify' {
  interface FastifyRequest {
    /** What the response named (ids, error), for the audit line. */
    acted: Acted | null
  }
}

const audited = (request: FastifyRequest) => {
  const { scope, public: open } = request.routeOptions.config
  return !open && scope !== undefined && scope !== 'read'
}

export default fp(async (fastify) => {
  fastify.decorateRequest('acted', null)

  // The ids are in the response (a start draws its workflow id): read them as it leaves.
  fastify.addHook('onSend', async (request, _reply, payload) => {
    if (!audited(request) || typeof payload !== 'string') return payload
    try {
      const body = JSON.parse(payload) as Acted
      request.acted = { workflowId: body.workflowId, runId: body.runId, error: body.error }
    } catch {}
    return payload
  })

  fastify.addHook('onResponse', async (request, reply) => {
    if (!audited(request)) return
    const params = request.params as { id?: string, rid?: string }
    const acted = request.acted
    request.log.info({
      audit: true,
      keyId: request.principal?.keyId ?? null,
      via: request.principal?.kind ?? null,
      action: request.routeOptions.schema?.operationId ?? request.routeOptions.url,
      workflowId: acted?.workflowId ?? params.id ?? null,
      runId: acted?.runId ?? params.rid ?? null,
      outcome: acted?.error ? `${reply.statusCode} ${acted.error}` : String(reply.statusCode)
    }, 'audit')
  })
}, { name: 'audit', dependencies: ['auth'] })
