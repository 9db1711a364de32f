/** All need `control` (acting on runs nobody named one by one is an operator's act) and a key without limits. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { BatchBodySchema, BatchParamsSchema, BatchStartedSchema, BatchStatusSchema } from '../../schemas/batch.js'
import { clientGone } from '../../lib/abort.js'
import { access, engineIdentity } from '../../plugins/app/access/route-access.js'

const batch: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/workflow/batch', {
    config: access('control', 'batch'),
    schema: {
      tags: ['batch'],
      operationId: 'startBatch',
      summary: 'Act on every run a filter matches',
      description: 'Terminates, stops, signals or resets every run the filter matches, through the engine\'s batch operations. The run ' +
        'list is eventually consistent: a run started a moment before may be missed. `matched` says how many runs matched at the start.',
      body: ref(BatchBodySchema),
      response: { 202: ref(BatchStartedSchema), ...errorsFor(400, 401, 413, 415, 429, 500, 502, 503) }
    }
  }, async (request, reply) => {
    const filter = 'query' in request.body.filter ? request.body.filter : await fastify.catalogs.typeFiltered(request.body.filter)
    const started = await fastify.batch.start({ ...request.body, filter }, engineIdentity(request), clientGone(reply))
    return await reply.code(202).header('location', `/workflow/batch/${started.batchId}`).send(started)
  })

  fastify.get('/workflow/batch/:batchId', {
    config: access('control', 'batch'),
    schema: { tags: ['batch'], operationId: 'getBatch', summary: 'Progress of a batch operation', params: ref(BatchParamsSchema), response: { 200: ref(BatchStatusSchema), ...errorsFor(400, 401, 404, 500, 502, 503) } }
  }, async (request, reply) => await fastify.batch.read(request.params.batchId, clientGone(reply)))

  fastify.delete('/workflow/batch/:batchId', {
    config: access('control', 'batch'),
    schema: { tags: ['batch'], operationId: 'stopBatch', summary: 'Stop a batch operation', description: 'Runs already acted on stay as they are; a stopped batch reads `failed`, a finished one is answered as it stands.', params: ref(BatchParamsSchema), response: { 200: ref(BatchStatusSchema), ...errorsFor(400, 401, 404, 500, 502, 503) } }
  }, async (request, reply) => await fastify.batch.stop(request.params.batchId, engineIdentity(request), clientGone(reply)))
}

export default batch
