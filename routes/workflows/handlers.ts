/** Signals, queries and updates of the latest run, and queries of one run (a closed run still answers them). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import {
  QueryBodySchema, QueryParamsSchema, QueryResultSchema, RunQueryParamsSchema, SignalBodySchema, SignalParamsSchema, SignalResultSchema, UpdateBodySchema, UpdateParamsSchema, UpdateResultSchema,
  UpdateAcceptedSchema, UpdateHeadersSchema, UpdateStateParamsSchema, UpdateStateSchema
} from '../../schemas/workflow.js'
import { clientGone } from '../../lib/abort.js'
import { optionalBody, optionalBodySchema } from '../../lib/http/optional-body.js'
import type { HandlerCall, HandlerKind } from '../../plugins/app/control/index.js'
import { latestAndPinned, runCall } from '../latest-and-pinned.js'
import { preferences } from '../../lib/http/prefer.js'
import { access } from '../../plugins/app/access/route-access.js'
import { ConditionalReadHeadersSchema, RunPreconditionHeadersSchema, notModified, withEtag } from '../../plugins/http/conditional/schema.js'

const common = '404: unknown workflow id, or a name the run\'s workflow does not declare in its catalog. ' +
  '503: the run\'s catalog is not published (its handlers cannot be checked).'

type HandlerRequest = Parameters<typeof runCall>[0] & { body?: { payload?: unknown } }

const handlerCall = (request: HandlerRequest, reply: FastifyReply, kind: HandlerKind, name: string): HandlerCall =>
  ({ ...runCall(request, reply), kind, name, payload: request.body?.payload })

const handlers: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/workflow/:id/signal/:name', {
    config: access('interact', 'workflow'),
    ...optionalBody,
    schema: {
      ...optionalBodySchema,
      tags: ['workflows'],
      operationId: 'signalWorkflow',
      summary: 'Send a signal to the latest run',
      description: `Answers once the engine has recorded the signal. 409 WorkflowAlreadyClosedError when the run is closed. ${common}`,
      params: ref(SignalParamsSchema),
      headers: ref(RunPreconditionHeadersSchema),
      body: ref(SignalBodySchema),
      response: { 200: ref(SignalResultSchema), ...errorsFor(400, 401, 404, 409, 412, 413, 415, 500, 502, 503) }
    }
  }, async (request, reply) => await fastify.control.sendSignal(handlerCall(request, reply, 'signal', request.params.name)))

  latestAndPinned<{ Params: { query: string }, Headers: { 'if-match'?: string }, Body?: { payload?: unknown } }>(fastify, '/query/:query', {
    method: 'POST',
    config: access('interact', 'workflow'),
    optionalBody: true,
    latest: {
      operationId: 'queryWorkflow',
      summary: 'Query the latest run',
      description: 'Read-only. A closed run is still answered when a worker can replay it. ' +
        `422 QueryFailedError when the query handler throws. ${common}`,
      params: ref(QueryParamsSchema)
    },
    pinned: {
      operationId: 'queryRun',
      summary: 'Query one run',
      description: 'The query of POST /workflow/{id}/query/{query}, sent to this run instead of the latest one: e.g. a run that ' +
        'continued as new or was reset, which still answers when a worker can replay it. ' +
        `422 QueryFailedError when the query handler throws. ${common}`,
      params: ref(RunQueryParamsSchema)
    },
    schema: { body: ref(QueryBodySchema), response: { 200: ref(QueryResultSchema), ...errorsFor(400, 401, 404, 409, 413, 415, 422, 500, 502, 503) } }
  }, async (request, reply) => await fastify.control.runQuery(handlerCall(request, reply, 'query', request.params.query)))

  fastify.post('/workflow/:id/update/:name', {
    config: access('interact', 'workflow'),
    ...optionalBody,
    schema: {
      ...optionalBodySchema,
      tags: ['workflows'],
      operationId: 'updateWorkflow',
      summary: 'Run an update on the latest run and return its result',
      description: 'Answers after the workflow accepted and ran the update. 422 UpdateRejectedError when its validator ' +
        'rejects the payload (nothing is recorded), 422 UpdateFailedError when the accepted update\'s handler fails. ' +
        'With `Prefer: respond-async`: 202 as soon as the workflow accepted it, with `Location` of its state ' +
        '(GET /workflow/{id}/updates/{updateId}) and `Preference-Applied: respond-async`; a rejection is still a 422. ' +
        `409 WorkflowAlreadyClosedError when the run is closed. ${common}`,
      params: ref(UpdateParamsSchema),
      headers: ref(UpdateHeadersSchema),
      body: ref(UpdateBodySchema),
      response: {
        200: ref(UpdateResultSchema),
        202: Type.Unsafe<Static<typeof UpdateAcceptedSchema>>(Type.Ref('UpdateAccepted', {
          description: '`Prefer: respond-async` was sent and the workflow accepted the update; its handler runs on',
          headers: { location: { type: 'string', description: 'GET /workflow/{id}/updates/{updateId}: the update\'s state, and its result once done' } }
        })),
        ...errorsFor(400, 401, 404, 409, 412, 413, 415, 422, 500, 502, 503)
      }
    }
  }, async (request, reply) => {
    const call = handlerCall(request, reply, 'update', request.params.name)
    if (!preferences(request.headers.prefer).respondAsync) return await fastify.control.runUpdate(call)
    const accepted = await fastify.control.startUpdate(call)
    const location = `/workflow/${encodeURIComponent(accepted.workflowId)}/updates/${encodeURIComponent(accepted.updateId)}`
    return reply.code(202).header('location', location).header('preference-applied', 'respond-async').header('vary', 'Prefer').send(accepted)
  })

  fastify.get('/workflow/:id/updates/:updateId', {
    config: { ...access('read', 'workflow'), etag: true as const },
    schema: {
      tags: ['workflows'],
      operationId: 'getWorkflowUpdate',
      summary: 'State of an accepted update, and its result once done',
      description: 'Where an update of the latest run stands: `accepted` (its handler runs), `completed` (with `result`) or `failed` ' +
        '(with `error`). Answers at once; poll it (`If-None-Match` makes an unchanged answer a 304). 404 UpdateNotFoundError when the ' +
        'latest run of the workflow id has no accepted update of that id (a rejected update is never recorded).',
      params: ref(UpdateStateParamsSchema),
      headers: ref(ConditionalReadHeadersSchema),
      response: { 200: withEtag(UpdateStateSchema, 'The update\'s state, with an `ETag`'), 304: notModified, ...errorsFor(400, 401, 404, 500, 502, 503) }
    }
  }, async (request, reply) => await fastify.control.readUpdate({ workflowId: request.params.id, updateId: request.params.updateId, signal: clientGone(reply) }))
}

export default handlers
