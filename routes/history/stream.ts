/**
 * GET /workflow/{id}/history/stream and /workflow/{id}/runs/{rid}/history/stream (DESIGN.md §5).
 * Everything that can fail as JSON (cursor, run lookup, 204 after `done`) happens before the
 * first SSE byte; afterwards failures are `server_error` events.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type, type TSchema } from '@sinclair/typebox'
import { validationError, type Issue } from '../../lib/api-error.js'
import { decodeCursor, type StreamCursor } from '../../lib/history/cursor.js'
import { streamRun } from '../../lib/history/stream.js'
import { describeRun, historyWorkflowOf } from '../../lib/execution.js'
import { ErrorResponseSchema, errorsFor, ref, RunParamsSchema, WorkflowParamsSchema } from '../../schemas/common.js'
import {
  HistoryEventSchema, HistoryStreamDoneSchema, HistoryStreamQuerySchema, HistoryStreamServerErrorSchema, HistoryWorkflowSchema
} from '../../schemas/history.js'

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

const sseDescription = [
  'A text/event-stream. Events: `workflow` (HistoryWorkflow) on every connect, with a `retry:` hint;',
  '`history` (array of HistoryEvent, with an `id:`) per batch of new events; `done` (HistoryStreamDone, with an `id:`)',
  'when the run ends, then the stream closes; `server_error` (HistoryStreamServerError) after a failure, then the stream closes.',
  'Comments (`: heartbeat`) every 15 s. Resume with `Last-Event-ID` (or `?lastEventId=`): exactly the unseen events follow.'
].join(' ')

const errorDescriptions: Record<string, string> = {
  400: 'Invalid parameter or Last-Event-ID / lastEventId',
  401: 'Missing or wrong token',
  404: 'No such workflow or run',
  406: 'The client does not accept text/event-stream',
  500: 'Internal error',
  503: 'The engine is unavailable'
}

/**
 * One event of the stream as an SSE parser delivers it, `{event, data, id?, retry?}`, with `data`
 * the JSON text of the event's schema (`contentSchema`): the OpenAPI 3.2 reading of a
 * text/event-stream schema, which schemathesis and stream-aware client generators follow. A
 * parser carries the last `id:` over to later events, so `id` may appear on any event.
 */
function sseEvent (event: string, data: TSchema, description: string, fields: { id?: 'required', retry?: true } = {}) {
  const id = Type.String({ description: 'Opaque cursor; reconnect with it as Last-Event-ID' })
  return Type.Object({
    event: Type.Literal(event),
    data: Type.String({ contentMediaType: 'application/json', contentSchema: data }),
    id: fields.id ? id : Type.Optional(id),
    ...(fields.retry ? { retry: Type.Optional(Type.Integer({ minimum: 0, description: 'Reconnect delay hint in milliseconds' })) } : {})
  }, { description, additionalProperties: false })
}

const streamEvent = Type.Union([
  sseEvent('workflow', ref(HistoryWorkflowSchema), 'First event of every connection: the run being streamed', { retry: true }),
  sseEvent('history', Type.Array(ref(HistoryEventSchema)), 'A batch of events the client has not seen', { id: 'required' }),
  sseEvent('done', ref(HistoryStreamDoneSchema), 'The run closed; the stream ends', { id: 'required' }),
  sseEvent('server_error', ref(HistoryStreamServerErrorSchema), 'The stream failed; it ends (reconnect to resume)')
], { description: 'One event of the stream' })

const streamResponses = {
  200: {
    description: sseDescription,
    content: { 'text/event-stream': { schema: streamEvent } }
  },
  204: Type.Null({ description: 'The cursor is at `done`: nothing more will come (EventSource stops reconnecting)' }),
  // Failures before the stream are JSON, whatever the success type is.
  ...Object.fromEntries(Object.entries({ ...errorsFor(400, 401, 404, 500, 503), 406: ref(ErrorResponseSchema) })
    .map(([status, schema]) => [status, { description: errorDescriptions[status], content: { 'application/json': { schema } } }]))
}

const stream: FastifyPluginAsyncTypebox = async (fastify) => {
  async function open (request: FastifyRequest, reply: FastifyReply, id: string, rid: string | undefined, query: StreamQuery) {
    const { cursor, issue } = cursorOf(request, query)
    if (cursor && rid && cursor.runId !== rid.toLowerCase()) throw validationError([{ ...issue, message: 'The event id belongs to another run' }])
    // The unpinned route follows the run named by the cursor, else the run current now.
    const info = historyWorkflowOf(await describeRun(fastify, { workflowId: id, runId: rid ?? cursor?.runId }))
    if (cursor && cursor.eventId > info.historyLength) throw validationError([{ ...issue, message: 'The event id is ahead of the run\'s history' }])
    if (cursor?.done) return await reply.code(204).send()
    await streamRun({
      reply,
      hubs: fastify.historyHubs,
      streams: fastify.openStreams,
      info,
      position: cursor?.eventId ?? 0,
      includePayloads: query.includePayloads ?? false,
      log: request.log
    })
  }

  const common = {
    tags: ['history'],
    querystring: ref(HistoryStreamQuerySchema),
    response: streamResponses
  }

  fastify.get('/workflow/:id/history/stream', {
    sse: 'only',
    config: { queryToken: true },
    schema: {
      ...common,
      operationId: 'streamHistory',
      summary: 'Live history of the current run (or of the run named by Last-Event-ID) as Server-Sent Events',
      params: ref(WorkflowParamsSchema)
    }
  }, async (request, reply) => { await open(request, reply, request.params.id, undefined, request.query) })

  fastify.get('/workflow/:id/runs/:rid/history/stream', {
    sse: 'only',
    config: { queryToken: true },
    schema: {
      ...common,
      operationId: 'streamRunHistory',
      summary: 'Live history of one run as Server-Sent Events',
      params: ref(RunParamsSchema)
    }
  }, async (request, reply) => { await open(request, reply, request.params.id, request.params.rid, request.query) })
}

export default stream
