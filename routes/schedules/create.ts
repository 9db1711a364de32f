/**
 * POST /schedules: check everything (spec, workflow, input), then let the engine store it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref, response } from '../../schemas/common.js'
import { CreateScheduleBodySchema, ScheduleCreatedSchema } from '../../schemas/schedules.js'
import { clientGone } from '../../lib/abort.js'
import { access, engineIdentity } from '../../lib/http/access.js'

const create: FastifyPluginAsyncTypebox = async (fastify) => {
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
        ...errorsFor(400, 401, 404, 409, 413, 415, 500, 503)
      }
    }
  }, async (request, reply) => {
    const scheduleId = await fastify.schedules.create(request.body, engineIdentity(request), clientGone(reply))
    return await reply.code(201).header('location', `/schedules/${encodeURIComponent(scheduleId)}`).send({ scheduleId })
  })
}

export default create
