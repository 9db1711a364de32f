/**
 * GET /workflow/{id}/status and its pinned form: the run's status in the one vocabulary, and
 * whether a worker would move it on.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { RunParamsSchema, WorkflowParamsSchema, errorsFor, ref } from '../../schemas/common.js'
import { WorkflowStatusSchema } from '../../schemas/workflow.js'
import { readStatus } from '../../lib/execution.js'
import { access } from '../../lib/http/access.js'
import { ConditionalReadHeadersSchema, notModified, withEtag } from '../../schemas/conditional.js'

const status: FastifyPluginAsyncTypebox = async (fastify) => {
  const response = { 200: withEtag(WorkflowStatusSchema, 'The run\'s status; its `ETag` (`"<runId>.<hash>"`) changes whenever anything in it changes, and names the run for `If-Match`'), 304: notModified, ...errorsFor(400, 401, 404, 500, 503) }
  const config = { ...access('read', 'workflow'), etag: 'run' as const }

  fastify.get('/workflow/:id/status', {
    config,
    schema: { tags: ['workflows'], operationId: 'getWorkflowStatus', summary: 'Status of the latest run of a workflow id', params: ref(WorkflowParamsSchema), headers: ref(ConditionalReadHeadersSchema), response }
  }, async (request) => await readStatus(fastify, { workflowId: request.params.id }))

  fastify.get('/workflow/:id/runs/:rid/status', {
    config,
    schema: { tags: ['workflows'], operationId: 'getRunStatus', summary: 'Status of one run', params: ref(RunParamsSchema), headers: ref(ConditionalReadHeadersSchema), response }
  }, async (request) => await readStatus(fastify, { workflowId: request.params.id, runId: request.params.rid }))
}

export default status
