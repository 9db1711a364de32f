/**
 * GET /workflow/{id}/status and its pinned form: the run's status in the one vocabulary, and
 * whether a worker would move it on.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { WorkflowStatusSchema } from '../../schemas/workflow.js'
import { access } from '../../lib/http/access.js'
import { ConditionalReadHeadersSchema, notModified, withEtag } from '../../schemas/conditional.js'
import { latestAndPinned } from './latest-and-pinned.js'

const status: FastifyPluginAsyncTypebox = async (fastify) => {
  latestAndPinned(fastify, '/status', {
    method: 'GET',
    config: { ...access('read', 'workflow'), etag: 'run' as const },
    latest: { operationId: 'getWorkflowStatus', summary: 'Status of the latest run of a workflow id' },
    pinned: { operationId: 'getRunStatus', summary: 'Status of one run' },
    schema: {
      headers: ref(ConditionalReadHeadersSchema),
      response: { 200: withEtag(WorkflowStatusSchema, 'The run\'s status; its `ETag` (`"<runId>.<hash>"`) changes whenever anything in it changes, and names the run for `If-Match`'), 304: notModified, ...errorsFor(400, 401, 404, 500, 503) }
    }
  }, async (request) => await fastify.runs.readStatus({ workflowId: request.params.id, runId: request.params.rid }))
}

export default status
