/**
 * GET /workflow/{id}/history and /workflow/{id}/runs/{rid}/history: one page of a run's events
 * (plugins/app/history/page.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref, RunParamsSchema, WorkflowParamsSchema } from '../../schemas/common.js'
import { HistoryPageSchema, HistoryQuerySchema, type HistoryQuery } from '../../schemas/history.js'
import { access } from '../../lib/http/access.js'
import { ConditionalReadHeadersSchema, notModified, withEtag } from '../../schemas/conditional.js'

const history: FastifyPluginAsyncTypebox = async (fastify) => {
  const page = async (workflowId: string, runId: string | undefined, query: HistoryQuery) =>
    await fastify.history.page({ workflowId, runId, pageSize: query.pageSize ?? 100, pageToken: query.pageToken, includePayloads: query.includePayloads ?? false })

  const common = {
    tags: ['history'],
    querystring: ref(HistoryQuerySchema),
    headers: ref(ConditionalReadHeadersSchema),
    response: { 200: withEtag(HistoryPageSchema, 'One page of events, with an `ETag` (a page of an open run changes as events arrive)'), 304: notModified, ...errorsFor(400, 401, 404, 500, 503) }
  }

  fastify.get('/workflow/:id/history', {
    config: { ...access('read', 'workflow'), etag: true as const },
    schema: {
      ...common,
      operationId: 'getHistory',
      summary: 'One page of the history of the current run (the page token then pins that run)',
      params: ref(WorkflowParamsSchema)
    }
  }, async (request) => await page(request.params.id, undefined, request.query))

  fastify.get('/workflow/:id/runs/:rid/history', {
    config: { ...access('read', 'workflow'), etag: true as const },
    schema: {
      ...common,
      operationId: 'getRunHistory',
      summary: 'One page of the history of one run',
      params: ref(RunParamsSchema)
    }
  }, async (request) => await page(request.params.id, request.params.rid, request.query))
}

export default history
