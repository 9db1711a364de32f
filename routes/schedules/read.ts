/**
 * GET /schedules and GET /schedules/{scheduleId}: what the engine keeps, in the API's terms.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { ScheduleParamsSchema, ScheduleSchema, SchedulesQuerySchema, SchedulesSchema } from '../../schemas/schedules.js'
import { clientGone } from '../../lib/abort.js'
import { access } from '../../lib/http/access.js'

const read: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/schedules', {
    config: access('read', 'runs'),
    schema: {
      tags: ['schedules'],
      operationId: 'listSchedules',
      summary: 'List schedules, with filters and cursor pagination',
      description: 'Pass `nextPageToken` as `pageToken` with the same filters for the next page. The filters apply to each page ' +
        'of the engine\'s list, so a page may hold fewer than `pageSize` schedules (even none) while more follow.',
      querystring: ref(SchedulesQuerySchema),
      response: { 200: ref(SchedulesSchema), ...errorsFor(400, 401, 500, 503) }
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
      response: { 200: ref(ScheduleSchema), ...errorsFor(400, 401, 404, 500, 503) }
    }
  }, async (request, reply) => {
    const { etag, schedule } = await fastify.schedules.read(request.params.scheduleId, clientGone(reply))
    reply.header('etag', etag)
    return schedule
  })
}

export default read
