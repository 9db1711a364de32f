/**
 * GET /workflow/runs: the executions the engine knows, filtered and paged.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { RunsQuerySchema, WorkflowRunsSchema } from '../../schemas/workflow.js'
import { access } from '../../lib/http/access.js'

const runs: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/workflow/runs', {
    config: access('read', 'runs'),
    schema: {
      tags: ['workflows'],
      operationId: 'listRuns',
      summary: 'List runs, newest first, with filters and cursor pagination',
      description: 'Every run is listed (child workflows and earlier runs of a continue-as-new chain too); internal ' +
        'catalog workflows never are. Pass `nextPageToken` as `pageToken` with the same filters for the next page; a ' +
        'token that is not one (or one of other filters) is a 400. Order: newest first as the engine\'s visibility ' +
        'store sorts: open runs first (latest start first), then closed runs by close time, latest first. The last page ' +
        'may be empty.',
      querystring: ref(RunsQuerySchema),
      response: { 200: ref(WorkflowRunsSchema), ...errorsFor(400, 401, 500, 503) }
    }
  }, async (request) => await fastify.runs.listRuns(request.query))
}

export default runs
