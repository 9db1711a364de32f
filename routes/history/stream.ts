/**
 * GET /workflow/{id}/history/stream and /workflow/{id}/runs/{rid}/history/stream
 * (plugins/app/history/stream.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Issue } from '../../lib/api-error.js'
import { ref, RunParamsSchema, WorkflowParamsSchema } from '../../schemas/common.js'
import { HistoryStreamHeadersSchema, HistoryStreamQuerySchema } from '../../schemas/history.js'
import { streamResponses } from '../../schemas/history-stream.js'
import { access } from '../../lib/http/access.js'

interface StreamQuery { includePayloads?: boolean, lastEventId?: string }

/** The client's Last-Event-ID: the header wins over ?lastEventId= (an EventSource resuming a URL that carries a stale one). */
function lastEventIdOf (request: FastifyRequest, query: StreamQuery): { lastEventId?: string, issue: Omit<Issue, 'message'> } {
  const header = request.headers['last-event-id']
  const fromHeader = typeof header === 'string' && header.trim() !== ''
  return fromHeader
    ? { lastEventId: header.trim(), issue: { path: '/last-event-id', in: 'headers' } }
    : { lastEventId: query.lastEventId, issue: { path: '/lastEventId', in: 'querystring' } }
}

const stream: FastifyPluginAsyncTypebox = async (fastify) => {
  async function open (request: FastifyRequest, reply: FastifyReply, workflowId: string, runId: string | undefined, query: StreamQuery) {
    await fastify.history.stream({ reply, workflowId, runId, ...lastEventIdOf(request, query), includePayloads: query.includePayloads ?? false })
  }

  const common = {
    tags: ['history'],
    querystring: ref(HistoryStreamQuerySchema),
    headers: ref(HistoryStreamHeadersSchema),
    response: streamResponses
  }

  fastify.get('/workflow/:id/history/stream', {
    sse: 'only',
    config: { queryToken: true, ...access('read', 'workflow') },
    schema: {
      ...common,
      operationId: 'streamHistory',
      summary: 'Live history of the current run (or of the run named by Last-Event-ID) as Server-Sent Events',
      params: ref(WorkflowParamsSchema)
    }
  }, async (request, reply) => { await open(request, reply, request.params.id, undefined, request.query) })

  fastify.get('/workflow/:id/runs/:rid/history/stream', {
    sse: 'only',
    config: { queryToken: true, ...access('read', 'workflow') },
    schema: {
      ...common,
      operationId: 'streamRunHistory',
      summary: 'Live history of one run as Server-Sent Events',
      params: ref(RunParamsSchema)
    }
  }, async (request, reply) => { await open(request, reply, request.params.id, request.params.rid, request.query) })
}

export default stream
