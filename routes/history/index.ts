/** A page of a run's events and their live SSE stream (docs/architecture.md, "The history stream"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { HistoryPageSchema, HistoryQuerySchema, HistoryStreamHeadersSchema, HistoryStreamQuerySchema, type HistoryQuery } from '../../schemas/history.js'
import { streamResponses } from '../../schemas/history-stream.js'
import { ConditionalReadHeadersSchema, notModified, withEtag } from '../../plugins/http/conditional/schema.js'
import { access } from '../../plugins/app/access/route-access.js'
import { lastEventIdOf } from '../../plugins/external/sse/streams.js'
import { latestAndPinned } from '../latest-and-pinned.js'

const history: FastifyPluginAsyncTypebox = async (fastify) => {
  latestAndPinned<{ Querystring: HistoryQuery }>(fastify, '/history', {
    method: 'GET',
    tags: ['history'],
    config: { ...access('read', 'workflow'), etag: true as const },
    latest: { operationId: 'getHistory', summary: 'One page of the history of the current run (the page token then pins that run)' },
    pinned: { operationId: 'getRunHistory', summary: 'One page of the history of one run' },
    schema: {
      querystring: ref(HistoryQuerySchema),
      headers: ref(ConditionalReadHeadersSchema),
      response: { 200: withEtag(HistoryPageSchema, 'One page of events, with an `ETag` (a page of an open run changes as events arrive)'), 304: notModified, ...errorsFor(400, 401, 404, 500, 502, 503) }
    }
  }, async ({ params, query }) => await fastify.history.page({
    workflowId: params.id, runId: params.rid, pageSize: query.pageSize ?? 100, pageToken: query.pageToken, includePayloads: query.includePayloads ?? false
  }))

  latestAndPinned<{ Headers: { 'last-event-id'?: string }, Querystring: { includePayloads?: boolean, lastEventId?: string } }>(fastify, '/history/stream', {
    method: 'GET',
    tags: ['history'],
    sse: 'only',
    config: { queryToken: true, ...access('read', 'workflow') },
    latest: { operationId: 'streamHistory', summary: 'Live history of the current run (or of the run named by Last-Event-ID) as Server-Sent Events' },
    pinned: { operationId: 'streamRunHistory', summary: 'Live history of one run as Server-Sent Events' },
    schema: { querystring: ref(HistoryStreamQuerySchema), headers: ref(HistoryStreamHeadersSchema), response: streamResponses }
  }, async ({ params, headers, query }, reply) => {
    await fastify.history.stream({
      reply, workflowId: params.id, runId: params.rid, ...lastEventIdOf(headers['last-event-id'], query.lastEventId), includePayloads: query.includePayloads ?? false
    })
  })
}

export default history
