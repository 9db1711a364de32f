/**
 * POST /workflow/start: start and answer at once with the ids to poll.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { StartWorkflowBodySchema, WorkflowStartedSchema } from '../../schemas/workflow.js'
import { startWorkflow } from '../../lib/start-workflow.js'
import { clientGone } from '../../lib/abort.js'
import { access } from '../../lib/access/scopes.js'
import { engineIdentity } from '../../lib/access/principal.js'

const start: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/workflow/start', {
    config: access('run', 'start'),
    schema: {
      tags: ['workflows'],
      operationId: 'startWorkflow',
      summary: 'Start a workflow and return its ids at once',
      description: 'Validates `input` against the catalog\'s inputSchema (400), resolves aliases, and starts the run on the ' +
        'catalog\'s task queue. 404: the workflow is not in the catalog. 409 WorkflowAlreadyStartedError: a run with this ' +
        'workflowId is still open (the body names its runId). A closed run\'s id may be reused. 503: the catalog is not published.',
      body: ref(StartWorkflowBodySchema),
      response: { 200: ref(WorkflowStartedSchema), ...errorsFor(400, 401, 404, 409, 413, 415, 500, 503) }
    }
  }, async (request, reply) => {
    if (request.body.taskQueue !== undefined && request.body.catalog === undefined) request.log.warn('taskQueue is deprecated: send catalog')
    const { workflowId, runId } = await startWorkflow(fastify, request.body, clientGone(reply), engineIdentity(request))
    return { workflowId, runId }
  })
}

export default start
