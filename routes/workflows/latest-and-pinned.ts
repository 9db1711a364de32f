/**
 * An endpoint of a run that exists twice: for the latest run of a workflow id
 * (`/workflow/{id}/<path>`) and for a pinned run (`/workflow/{id}/runs/{rid}/<path>`). One
 * definition registers both; the two differ only in their operationId, summary, description and
 * params, and the handler reads `rid` (absent for the latest run).
 */
import type { FastifyReply, FastifyRequest, FastifySchema, RouteGenericInterface } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { RunParamsSchema, WorkflowParamsSchema, ref } from '../../schemas/common.js'
import { optionalBody, optionalBodySchema } from './optional-body.js'

type Fastify = Parameters<FastifyPluginAsyncTypebox>[0]

export interface RunRouteVariant {
  operationId: string
  summary: string
  description?: string
  /** Default: WorkflowParams for the latest run, RunParams for the pinned one. */
  params?: TSchema
}

export interface RunRoute<G extends RouteGenericInterface> {
  method: 'GET' | 'POST' | 'PATCH'
  /** What follows the run in the URL, e.g. `/status` or `/query/:query`. */
  path: string
  config: Record<string, unknown>
  /** The whole body is optional (./optional-body.ts). */
  optionalBody?: true
  /** Shared by both variants unless a variant has its own. */
  description?: string
  latest: RunRouteVariant
  pinned: RunRouteVariant
  /** The rest of the schema (headers, body, response), the same for both. */
  schema: Omit<FastifySchema, 'params' | 'summary' | 'description' | 'tags' | 'operationId'>
  handler: (request: FastifyRequest<G & { Params: { id: string, rid?: string } }>, reply: FastifyReply) => Promise<unknown>
}

export function latestAndPinned<G extends RouteGenericInterface> (fastify: Fastify, route: RunRoute<G>): void {
  const variants = [
    { url: `/workflow/:id${route.path}`, params: ref(WorkflowParamsSchema), ...route.latest },
    { url: `/workflow/:id/runs/:rid${route.path}`, params: ref(RunParamsSchema), ...route.pinned }
  ]
  for (const { url, operationId, summary, description = route.description, params } of variants) {
    fastify.route({
      method: route.method,
      url,
      config: route.config,
      ...(route.optionalBody ? optionalBody : {}),
      schema: {
        ...(route.optionalBody ? optionalBodySchema : {}),
        tags: ['workflows'],
        operationId,
        summary,
        ...(description === undefined ? {} : { description }),
        params,
        ...route.schema
      },
      // The route's schemas type the request as the handler declares it.
      handler: route.handler as never
    })
  }
}
