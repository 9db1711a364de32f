/**
 * An endpoint of a run that exists for the latest run of a workflow id (`/workflow/{id}<path>`)
 * and for a pinned run (`/workflow/{id}/runs/{rid}<path>`): one definition registers both. They
 * differ in operationId, summary, description and params; the handler reads `rid` (absent: latest).
 */
import type { FastifyContextConfig, FastifyReply, FastifySchema, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault, RouteGenericInterface, RouteHandlerMethod } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { RunParamsSchema, WorkflowParamsSchema, ref } from '../schemas/common.js'
import { optionalBody, optionalBodySchema } from '../lib/http/optional-body.js'
import { clientGone } from '../lib/abort.js'
import { engineIdentity, type Caller } from '../plugins/app/access/route-access.js'

type RunGeneric<G extends RouteGenericInterface> = G & { Params: { id: string, rid?: string } }

interface RunRequest { params: { id: string, rid?: string }, headers: { 'if-match'?: string }, principal: Caller | null }

/** The run a request is about: the pinned one, or the id's latest (`rid` absent). */
export const runOf = (request: { params: { id: string, rid?: string } }) => ({ workflowId: request.params.id, runId: request.params.rid })

/** The run a request acts on (plugins/app/control/stop.ts, `ControlCall`). */
export const runCall = (request: RunRequest, reply: FastifyReply) =>
  ({ ...runOf(request), signal: clientGone(reply), identity: engineIdentity(request), ifMatch: request.headers['if-match'] })

/** The params default to WorkflowParams (latest) and RunParams (pinned). */
interface Variant { operationId: string, summary: string, description?: string, params?: TSchema }

export interface RunRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
  tags?: string[]
  /** An SSE-only route (plugins/external/sse/index.ts). */
  sse?: 'only'
  config: FastifyContextConfig
  /** The whole body is optional (lib/http/optional-body.ts). */
  optionalBody?: true
  /** Both variants' unless one has its own. */
  description?: string
  latest: Variant
  pinned: Variant
  schema: Omit<FastifySchema, 'params' | 'summary' | 'description' | 'tags' | 'operationId'>
}

export type RunHandler<G extends RouteGenericInterface> = RouteHandlerMethod<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, RunGeneric<G>, unknown, FastifySchema, TypeBoxTypeProvider>

export function latestAndPinned<G extends RouteGenericInterface> (fastify: Parameters<FastifyPluginAsyncTypebox>[0], path: string, route: RunRoute, handler: RunHandler<G>): void {
  const variants = [
    { url: `/workflow/:id${path}`, params: ref(WorkflowParamsSchema), ...route.latest },
    { url: `/workflow/:id/runs/:rid${path}`, params: ref(RunParamsSchema), ...route.pinned }
  ]
  for (const { url, operationId, summary, description = route.description, params } of variants) {
    const schema = { tags: route.tags ?? ['workflows'], operationId, summary, ...(description === undefined ? {} : { description }), params, ...route.schema }
    fastify.route<RunGeneric<G>>({
      method: route.method,
      url,
      ...(route.sse === undefined ? {} : { sse: route.sse }),
      config: route.config,
      ...(route.optionalBody ? optionalBody : {}),
      schema: route.optionalBody ? { ...optionalBodySchema, ...schema } : schema,
      handler
    })
  }
}
