/**
 * PUT /schedules/{scheduleId}: a full replacement, checked like a create, guarded by If-Match
 * (plugins/app/schedules/store.ts `replaceSchedule` explains how a lost update is ruled out).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref, response } from '../../schemas/common.js'
import { ScheduleParamsSchema, ScheduleSchema, UpdateScheduleBodySchema, UpdateScheduleHeadersSchema } from '../../schemas/schedules.js'
import { clientGone } from '../../lib/abort.js'
import { access, engineIdentity } from '../../lib/http/access.js'

const replace: FastifyPluginAsyncTypebox = async (fastify) => {
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
        ...errorsFor(400, 401, 404, 412, 413, 415, 500, 503)
      }
    }
  }, async (request, reply) => {
    const { etag, schedule } = await fastify.schedules.replace(request.params.scheduleId, request.headers['if-match'], request.body, engineIdentity(request), clientGone(reply))
    reply.header('etag', etag)
    return schedule
  })
}

export default replace
