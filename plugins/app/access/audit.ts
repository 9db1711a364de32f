/**
 * One log line per call that acts on runs (scope not `read`): `{audit: true, keyId, action,
 * workflowId, runId, outcome}`; a deployment change names the deployment, build id and percentage
 * instead. The engine records the same key as the call's `identity` (`engine.as`).
 */
import fp from 'fastify-plugin'
import type { onResponseHookHandler, onSendHookHandler, RouteOptions } from 'fastify'
import { addRouteHook } from '../../../lib/http/route-hooks.js'

interface Acted { workflowId?: string, runId?: string, error?: string, current?: { buildId?: string } | null, versioningOverride?: unknown }

declare module 'fastify' {
  interface FastifyRequest {
    acted: Acted | null
  }
}

/** The hooks are those routes' alone, so reads run none of them. */
const audited = (config: { scope?: string, public?: boolean } | undefined) => config?.public !== true && config?.scope !== undefined && config.scope !== 'read'

// The ids are in the response (a start draws its workflow id): read them as it leaves.
const noteActed: onSendHookHandler<unknown> = (request, _reply, payload, done) => {
  if (typeof payload === 'string') {
    try {
      const body = JSON.parse(payload) as Acted
      request.acted = { workflowId: body.workflowId, runId: body.runId, error: body.error, current: body.current, versioningOverride: body.versioningOverride }
    } catch {}
  }
  done(null, payload)
}

function deploymentActed (deploymentName: string, body: { buildId?: string, percentage?: number } | null | undefined, acted: Acted | null) {
  return { deploymentName, buildId: body?.buildId ?? acted?.current?.buildId ?? null, percentage: body?.percentage ?? null }
}

const logAudit: onResponseHookHandler = (request, reply, done) => {
  const params = request.params as { id?: string, rid?: string, deploymentName?: string }
  const acted = request.acted
  request.log.info({
    audit: true,
    keyId: request.principal?.keyId ?? null,
    via: request.principal?.kind ?? null,
    action: request.routeOptions.schema?.operationId ?? request.routeOptions.url,
    ...(params.deploymentName === undefined
      ? { workflowId: acted?.workflowId ?? params.id ?? null, runId: acted?.runId ?? params.rid ?? null }
      : deploymentActed(params.deploymentName, request.body as { buildId?: string, percentage?: number } | null | undefined, acted)),
    ...(acted?.versioningOverride === undefined ? {} : { versioningOverride: acted.versioningOverride }),
    outcome: acted?.error ? `${reply.statusCode} ${acted.error}` : String(reply.statusCode)
  }, 'audit')
  done()
}

export default fp(async (fastify) => {
  fastify.decorateRequest('acted', null)
  fastify.addHook('onRoute', (route: RouteOptions) => {
    if (!audited(route.config)) return
    addRouteHook(route, 'onSend', noteActed)
    addRouteHook(route, 'onResponse', logAudit)
  })
}, { name: 'audit', dependencies: ['access'] })
