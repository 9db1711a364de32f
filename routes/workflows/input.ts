/**
 * GET /workflow/{id}/input and its pinned form: the input a run was started with (the latest run
 * for the unpinned form; after continue-as-new, the input the newest run received).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { RunParamsSchema, WorkflowParamsSchema, errorsFor, ref } from '../../schemas/common.js'
import { WorkflowInputSchema } from '../../schemas/workflow.js'
import { readInput } from '../../lib/run-input.js'
import { access } from '../../lib/http/access.js'
import { ConditionalReadHeadersSchema, notModified, withEtag } from '../../schemas/conditional.js'

const input: FastifyPluginAsyncTypebox = async (fastify) => {
  const response = { 200: withEtag(WorkflowInputSchema, 'The run\'s start input, with an `ETag`'), 304: notModified, ...errorsFor(400, 401, 404, 500, 503) }
  const config = { ...access('read', 'workflow'), etag: true as const }

  fastify.get('/workflow/:id/input', {
    config,
    schema: { tags: ['workflows'], operationId: 'getWorkflowInput', summary: 'Start input of the latest run of a workflow id', params: ref(WorkflowParamsSchema), headers: ref(ConditionalReadHeadersSchema), response }
  }, async (request) => await readInput(fastify, { workflowId: request.params.id }))

  fastify.get('/workflow/:id/runs/:rid/input', {
    config,
    schema: { tags: ['workflows'], operationId: 'getRunInput', summary: 'Start input of one run', params: ref(RunParamsSchema), headers: ref(ConditionalReadHeadersSchema), response }
  }, async (request) => await readInput(fastify, { workflowId: request.params.id, runId: request.params.rid }))
}

export default input
