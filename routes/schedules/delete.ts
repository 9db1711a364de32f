/**
 * DELETE /schedules/{scheduleId}: the engine forgets the schedule; its runs are theirs.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { ScheduleParamsSchema } from '../../schemas/schedules.js'
import { clientGone } from '../../lib/abort.js'
import { access, engineIdentity } from '../../lib/http/access.js'

const remove: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.delete('/schedules/:scheduleId', {
    config: access('control', 'schedule'),
    schema: {
      tags: ['schedules'],
      operationId: 'deleteSchedule',
      summary: 'Delete a schedule; runs it already started are left alone',
      description: 'No run is started by it any more. Runs it started (open or closed) are not stopped or removed: stop them with ' +
        'POST /workflow/{id}/stop. Their status keeps `scheduleId`, so `GET /workflow/runs?scheduleId=` still finds them.',
      params: ref(ScheduleParamsSchema),
      response: { 204: Type.Null({ description: 'Deleted; the runs it started are left alone' }), ...errorsFor(400, 401, 404, 500, 503) }
    }
  }, async (request, reply) => {
    await fastify.schedules.remove(request.params.scheduleId, engineIdentity(request), clientGone(reply))
    return await reply.code(204).send(null)
  })
}

export default remove
