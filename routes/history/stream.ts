/**
 * GET /workflow/{id}/history/stream and /workflow/{id}/runs/{rid}/history/stream.
 * Everything that can fail as JSON (cursor, run lookup, 204 after `done`) happens before the
 * first SSE byte; afterwards failures are `server_error` events.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { validationError, type Issue } from '../../lib/api-error.js'
import { decodeCursor, type StreamCursor } from '../../lib/history/cursor.js'
import { streamRun } from '../../lib/history/stream.js'
import { describeRun, historyWorkflowOf } from '../../plugins/app/runs/execution.js'
import { readAttention } from '../../plugins/app/runs/attention.js'
import { ref, RunParamsSchema, WorkflowParamsSchema } from '../../schemas/common.js'
import { HistoryStreamHeadersSchema, HistoryStreamQuerySchema } from '../../schemas/history.js'
import { streamResponses } from '../../schemas/history-stream.js'
import { access } from '../../lib/http/access.js'

interface StreamQuery { includePayloads?: boolean, lastEventId?: string }

/** The client's cursor: the Last-Event-ID header wins over ?lastEventId= (an EventSource resuming a URL that carries a stale one). */
function cursorOf (request: FastifyRequest, query: StreamQuery): { cursor?: StreamCursor, issue: Omit<Issue, 'message'> } {
  const header = request.headers['last-event-id']
  const fromHeader = typeof header === 'string' && header.trim() !== ''
  const value = fromHeader ? header.trim() : query.lastEventId
  const issue = fromHeader ? { path: '/last-event-id', in: 'headers' } : { path: '/lastEventId', in: 'querystring' }
  if (value === undefined) return { issue }
  const cursor = decodeCursor(value)
  if (!cursor) throw validationError([{ ...issue, message: 'Not an event id of this API' }])
  return { cursor, issue }
}

const stream: FastifyPluginAsyncTypebox = async (fastify) => {
  async function open (request: FastifyRequest, reply: FastifyReply, id: string, rid: string | undefined, query: StreamQuery) {
    const { cursor, issue } = cursorOf(request, query)
    if (cursor && rid && cursor.runId !== rid.toLowerCase()) {
      // A cursor naming a run this workflow does not have is a 404 like any unknown run; one of another run of it, a 400.
      await describeRun(fastify, { workflowId: id, runId: cursor.runId })
      throw validationError([{ ...issue, message: 'The event id belongs to another run' }])
    }
    // The unpinned route follows the run named by the cursor, else the run current now.
    const execution = await describeRun(fastify, { workflowId: id, runId: rid ?? cursor?.runId })
    const attention = await readAttention(fastify, { workflowId: id, runId: execution.runId }, execution.workflowTaskAttempt)
    const info = { ...historyWorkflowOf(execution), attention }
    if (cursor && cursor.eventId > info.historyLength) throw validationError([{ ...issue, message: 'The event id is ahead of the run\'s history' }])
    if (cursor?.done) return await reply.code(204).send()
    await streamRun({
      reply,
      hubs: fastify.historyHubs,
      streams: fastify.openStreams,
      info,
      position: cursor?.eventId ?? 0,
      includePayloads: query.includePayloads ?? false
    })
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
