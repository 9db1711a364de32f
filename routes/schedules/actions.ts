/**
 * POST /schedules/{scheduleId}/pause | unpause | trigger | backfill: the engine's schedule
 * operations, each answered 204 once the engine has taken it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { ScheduleBackfillBodySchema, ScheduleNoteBodySchema, ScheduleParamsSchema, ScheduleTriggerBodySchema } from '../../schemas/schedules.js'
import { validationError } from '../../lib/api-error.js'
import { clientGone } from '../../lib/abort.js'
import { access, engineIdentity } from '../../lib/http/access.js'
import { optionalBody, optionalBodySchema } from '../../lib/http/optional-body.js'

const done = Type.Null({ description: 'Done: the engine has taken it' })

const actions: FastifyPluginAsyncTypebox = async (fastify) => {
  const responses = { 204: done, ...errorsFor(400, 401, 404, 413, 415, 500, 503) }

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
}

export default actions
