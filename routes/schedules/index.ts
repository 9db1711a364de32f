/**
 * The schedule endpoints under /schedules (docs/schedules.md): recurring runs kept by the engine.
 * Reads need the `read` scope; creating, replacing, pausing, unpausing, triggering, backfilling and
 * deleting need `control` (docs/access-control.md): a schedule starts runs on its own, for as long as
 * it lives, which is an operator's power rather than a caller's one start.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorsFor, ref, response } from '../../schemas/common.js'
import {
  CreateScheduleBodySchema, ScheduleBackfillBodySchema, ScheduleCreatedSchema, ScheduleNoteBodySchema, ScheduleParamsSchema, ScheduleSchema,
  SchedulesQuerySchema, SchedulesSchema, ScheduleTriggerBodySchema, UpdateScheduleBodySchema, UpdateScheduleHeadersSchema
} from '../../schemas/schedules.js'
import { validationError } from '../../lib/api-error.js'
import { clientGone } from '../../lib/abort.js'
import { access, engineIdentity } from '../../plugins/app/access/route-access.js'
import { optionalBody, optionalBodySchema } from '../../lib/http/optional-body.js'

const schedules: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/schedules', {
    config: access('control', 'start'),
    schema: {
      tags: ['schedules'],
      operationId: 'createSchedule',
      summary: 'Create a schedule: runs of a catalog workflow, on a clock',
      description: 'The spec (cron strings, intervals, calendar fields, time zone) and policies are checked first (400 naming the field), ' +
        'then the workflow and catalog (404) and `input` against the catalog\'s inputSchema (400), exactly as for POST /workflow/start; ' +
        'only then does the engine store the schedule. Runs are named `<scheduleId>-<time due>` and are listed by ' +
        '`GET /workflow/runs?scheduleId=`. 409 ScheduleAlreadyExistsError: the id is in use. `Location` names the schedule.',
      body: ref(CreateScheduleBodySchema),
      response: {
        201: response(ScheduleCreatedSchema, 'The schedule is stored; `Location` names it'),
        ...errorsFor(400, 401, 404, 409, 413, 415, 500, 502, 503)
      }
    }
  }, async (request, reply) => {
    const scheduleId = await fastify.schedules.create(request.body, engineIdentity(request), clientGone(reply))
    return await reply.code(201).header('location', `/schedules/${encodeURIComponent(scheduleId)}`).send({ scheduleId })
  })

  fastify.get('/schedules', {
    config: access('read', 'runs'),
    schema: {
      tags: ['schedules'],
      operationId: 'listSchedules',
      summary: 'List schedules, with filters and cursor pagination',
      description: 'Pass `nextPageToken` as `pageToken` with the same filters for the next page. The filters apply to each page ' +
        'of the engine\'s list, so a page may hold fewer than `pageSize` schedules (even none) while more follow.',
      querystring: ref(SchedulesQuerySchema),
      response: { 200: ref(SchedulesSchema), ...errorsFor(400, 401, 500, 502, 503) }
    }
  }, async (request, reply) => await fastify.schedules.list(request.query, clientGone(reply)))

  fastify.get('/schedules/:scheduleId', {
    config: access('read', 'schedule'),
    schema: {
      tags: ['schedules'],
      operationId: 'getSchedule',
      summary: 'A schedule: its spec as sent, state, next 5 times due, last 10 runs, warnings',
      description: '`ETag` is the schedule\'s conflict token: send it as `If-Match` to replace the schedule (PUT). `warnings` say what ' +
        'would make its runs fail today (the workflow left its catalog, its inputSchema no longer accepts the stored input).',
      params: ref(ScheduleParamsSchema),
      response: { 200: ref(ScheduleSchema), ...errorsFor(400, 401, 404, 500, 502, 503) }
    }
  }, async (request, reply) => {
    const { etag, schedule } = await fastify.schedules.read(request.params.scheduleId, clientGone(reply))
    reply.header('etag', etag)
    return schedule
  })

  // PUT /schedules/{scheduleId}: a full replacement, checked like a create, guarded by If-Match
  // (plugins/app/schedules/schedules.ts `replace` explains how a lost update is ruled out).
  fastify.put('/schedules/:scheduleId', {
    config: access('control', 'schedule'),
    schema: {
      tags: ['schedules'],
      operationId: 'replaceSchedule',
      summary: 'Replace a schedule (If-Match: its ETag)',
      description: 'Checked like a create (400, 404). 412 PreconditionFailedError: `If-Match` is not the schedule\'s current ETag, or ' +
        'another update was applied at the same moment (this one was not): read it again and decide. Runs already started are not ' +
        'touched. Answers the schedule as stored now, with its new `ETag`.',
      params: ref(ScheduleParamsSchema),
      headers: ref(UpdateScheduleHeadersSchema),
      body: ref(UpdateScheduleBodySchema),
      response: {
        200: response(ScheduleSchema, 'The schedule as replaced; `ETag` is its new conflict token'),
        ...errorsFor(400, 401, 404, 412, 413, 415, 500, 502, 503)
      }
    }
  }, async (request, reply) => {
    const { etag, schedule } = await fastify.schedules.replace(request.params.scheduleId, request.headers['if-match'], request.body, engineIdentity(request), clientGone(reply))
    reply.header('etag', etag)
    return schedule
  })

  const responses = { 204: Type.Null({ description: 'Done: the engine has taken it' }), ...errorsFor(400, 401, 404, 413, 415, 500, 502, 503) }

  for (const [verb, summary] of [['pause', 'Pause a schedule: no run is started until it is unpaused'], ['unpause', 'Unpause a schedule']] as const) {
    fastify.post(`/schedules/:scheduleId/${verb}`, {
      config: access('control', 'schedule'),
      ...optionalBody,
      schema: {
        ...optionalBodySchema,
        tags: ['schedules'],
        operationId: `${verb}Schedule`,
        summary,
        description: '`note` is kept as the schedule\'s note. Runs already started go on. Pausing a paused schedule (or unpausing a running one) only sets the note.',
        params: ref(ScheduleParamsSchema),
        body: ref(ScheduleNoteBodySchema),
        response: responses
      }
    }, async (request, reply) => {
      await fastify.schedules[verb](request.params.scheduleId, request.body?.note, engineIdentity(request), clientGone(reply))
      return await reply.code(204).send(null)
    })
  }

  fastify.post('/schedules/:scheduleId/trigger', {
    config: access('control', 'schedule'),
    ...optionalBody,
    schema: {
      ...optionalBodySchema,
      tags: ['schedules'],
      operationId: 'triggerSchedule',
      summary: 'Start one run now, whatever the spec says (a paused schedule too)',
      description: '`overlap` (default: the schedule\'s policy) decides what happens when a run of the schedule is still open.',
      params: ref(ScheduleParamsSchema),
      body: ref(ScheduleTriggerBodySchema),
      response: responses
    }
  }, async (request, reply) => {
    await fastify.schedules.trigger(request.params.scheduleId, request.body?.overlap, engineIdentity(request), clientGone(reply))
    return await reply.code(204).send(null)
  })

  fastify.post('/schedules/:scheduleId/backfill', {
    config: access('control', 'schedule'),
    schema: {
      tags: ['schedules'],
      operationId: 'backfillSchedule',
      summary: 'Start now the runs that were due in a range, as if the schedule had been there',
      description: 'The runs due after `startAt` up to `endAt` by the spec are started, under `overlap` (default: the schedule\'s ' +
        'policy; `allowAll` starts them all at once, `bufferAll` one after the other). The range may lie in the past or the future.',
      params: ref(ScheduleParamsSchema),
      body: ref(ScheduleBackfillBodySchema),
      response: responses
    }
  }, async (request, reply) => {
    const start = new Date(request.body.startAt)
    const end = new Date(request.body.endAt)
    if (!(end > start)) throw validationError([{ path: '/endAt', in: 'body', message: 'must be after startAt' }])
    await fastify.schedules.backfill(request.params.scheduleId, { start, end, overlap: request.body.overlap }, engineIdentity(request), clientGone(reply))
    return await reply.code(204).send(null)
  })

  fastify.delete('/schedules/:scheduleId', {
    config: access('control', 'schedule'),
    schema: {
      tags: ['schedules'],
      operationId: 'deleteSchedule',
      summary: 'Delete a schedule; runs it already started are left alone',
      description: 'No run is started by it any more. Runs it started (open or closed) are not stopped or removed: stop them with ' +
        'POST /workflow/{id}/stop. Their status keeps `scheduleId`, so `GET /workflow/runs?scheduleId=` still finds them.',
      params: ref(ScheduleParamsSchema),
      response: { 204: Type.Null({ description: 'Deleted; the runs it started are left alone' }), ...errorsFor(400, 401, 404, 500, 502, 503) }
    }
  }, async (request, reply) => {
    await fastify.schedules.remove(request.params.scheduleId, engineIdentity(request), clientGone(reply))
    return await reply.code(204).send(null)
  })
}

export default schedules
