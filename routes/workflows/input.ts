/**
 * GET /workflow/{id}/input and its pinned form: the input a run was started with (the latest run
 * for the unpinned form; after continue-as-new, the input the newest run received).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { WorkflowInputSchema } from '../../schemas/workflow.js'
import { access } from '../../lib/http/access.js'
import { ConditionalReadHeadersSchema, notModified, withEtag } from '../../schemas/conditional.js'
import { latestAndPinned } from './latest-and-pinned.js'

const input: FastifyPluginAsyncTypebox = async (fastify) => {
  latestAndPinned(fastify, '/input', {
    method: 'GET',
    config: { ...access('read', 'workflow'), etag: true as const },
    latest: { operationId: 'getWorkflowInput', summary: 'Start input of the latest run of a workflow id' },
    pinned: { operationId: 'getRunInput', summary: 'Start input of one run' },
    schema: {
      headers: ref(ConditionalReadHeadersSchema),
      response: { 200: withEtag(WorkflowInputSchema, 'The run\'s start input, with an `ETag`'), 304: notModified, ...errorsFor(400, 401, 404, 500, 503) }
    }
  }, async (request) => await fastify.runs.readInput({ workflowId: request.params.id, runId: request.params.rid }))
}

export default input
