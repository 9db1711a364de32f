/**
 * GET /workflow/{id}/history/stream and /workflow/{id}/runs/{rid}/history/stream
 * (plugins/app/history/stream.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { ref, RunParamsSchema, WorkflowParamsSchema } from '../../schemas/common.js'
import { HistoryStreamHeadersSchema, HistoryStreamQuerySchema } from '../../schemas/history.js'
import { streamResponses } from '../../schemas/history-stream.js'
import { access } from '../../lib/http/access.js'
import { lastEventIdOf } from '../../lib/http/sse.js'

interface StreamRequest {
  headers: { 'last-event-id'?: string }
  query: { includePayloads?: boolean, lastEventId?: string }
}

const stream: FastifyPluginAsyncTypebox = async (fastify) => {
  async function open ({ headers, query }: StreamRequest, reply: FastifyReply, workflowId: string, runId?: string) {
    await fastify.history.stream({ reply, workflowId, runId, ...lastEventIdOf(headers['last-event-id'], query.lastEventId), includePayloads: query.includePayloads ?? false })
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
  }, async (request, reply) => { await open(request, reply, request.params.id) })

  fastify.get('/workflow/:id/runs/:rid/history/stream', {
    sse: 'only',
    config: { queryToken: true, ...access('read', 'workflow') },
    schema: {
      ...common,
      operationId: 'streamRunHistory',
      summary: 'Live history of one run as Server-Sent Events',
      params: ref(RunParamsSchema)
    }
  }, async (request, reply) => { await open(request, reply, request.params.id, request.params.rid) })
}

export default stream
