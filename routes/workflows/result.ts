/**
 * GET /workflow/{id}/result and its pinned form. The latest-run form answers for the newest run
 * (after continue-as-new, the run that continued); the pinned form reads that run's own close
 * event and never follows a chain.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { RunParamsSchema, WorkflowParamsSchema, errorsFor, ref } from '../../schemas/common.js'
import { WorkflowResultSchema } from '../../schemas/workflow.js'
import { readResult } from '../../lib/workflow-result.js'
import { access } from '../../lib/access/scopes.js'

const description = '200 for every final status (completed, failed, canceled, terminated, timed_out, continued_as_new); ' +
  '424 WorkflowNotCompletedError while the run is open; 404 for an unknown workflow or run.'

const result: FastifyPluginAsyncTypebox = async (fastify) => {
  const response = { 200: ref(WorkflowResultSchema), ...errorsFor(400, 401, 404, 424, 500, 503) }

  fastify.get('/workflow/:id/result', {
    config: access('read', 'workflow'),
    schema: {
      tags: ['workflows'],
      operationId: 'getWorkflowResult',
      summary: 'Result of the latest run of a workflow id',
      description,
      params: ref(WorkflowParamsSchema),
      response
    }
  }, async (request) => await readResult(fastify, { workflowId: request.params.id }))

  fastify.get('/workflow/:id/runs/:rid/result', {
    config: access('read', 'workflow'),
    schema: {
      tags: ['workflows'],
      operationId: 'getRunResult',
      summary: 'Result of one run (never follows continue-as-new)',
      description,
      params: ref(RunParamsSchema),
      response
    }
  }, async (request) => await readResult(fastify, { workflowId: request.params.id, runId: request.params.rid }))
}

export default result
