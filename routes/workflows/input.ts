/**
 * GET /workflow/{id}/input and its pinned form: the input a run was started with (the latest run
 * for the unpinned form; after continue-as-new, the input the newest run received).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { RunParamsSchema, WorkflowParamsSchema, errorsFor, ref } from '../../schemas/common.js'
import { WorkflowInputSchema } from '../../schemas/workflow.js'
import { readInput } from '../../lib/run-input.js'
import { access } from '../../lib/access/scopes.js'

const input: FastifyPluginAsyncTypebox = async (fastify) => {
  const response = { 200: ref(WorkflowInputSchema), ...errorsFor(400, 401, 404, 500, 503) }

  fastify.get('/workflow/:id/input', {
    config: access('read', 'workflow'),
    schema: { tags: ['workflows'], operationId: 'getWorkflowInput', summary: 'Start input of the latest run of a workflow id', params: ref(WorkflowParamsSchema), response }
  }, async (request) => await readInput(fastify, { workflowId: request.params.id }))

  fastify.get('/workflow/:id/runs/:rid/input', {
    config: access('read', 'workflow'),
    schema: { tags: ['workflows'], operationId: 'getRunInput', summary: 'Start input of one run', params: ref(RunParamsSchema), response }
  }, async (request) => await readInput(fastify, { workflowId: request.params.id, runId: request.params.rid }))
}

export default input
