/**
 * GET /workflow/{id}/result and its pinned form. The latest-run form answers for the newest run
 * (after continue-as-new, the run that continued); the pinned form reads that run's own close
 * event and never follows a chain.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { WorkflowResultSchema } from '../../schemas/workflow.js'
import { access } from '../../lib/http/access.js'
import { ConditionalReadHeadersSchema, notModified, withEtag } from '../../schemas/conditional.js'
import { latestAndPinned } from './latest-and-pinned.js'

const description = '200 for every final status (completed, failed, canceled, terminated, timed_out, continued_as_new); ' +
  '424 WorkflowNotCompletedError while the run is open; 404 for an unknown workflow or run. An input or output kept by reference ' +
  '(docs/large-payloads.md) and larger than SERVICE_PAYLOAD_INLINE_MAX_BYTES is not inline: `inputRef`/`outputRef` give a short-lived presigned download URL.'

const result: FastifyPluginAsyncTypebox = async (fastify) => {
  latestAndPinned(fastify, '/result', {
    method: 'GET',
    config: { ...access('read', 'workflow'), etag: true as const },
    description,
    latest: { operationId: 'getWorkflowResult', summary: 'Result of the latest run of a workflow id' },
    pinned: { operationId: 'getRunResult', summary: 'Result of one run (never follows continue-as-new)' },
    schema: {
      headers: ref(ConditionalReadHeadersSchema),
      response: { 200: withEtag(WorkflowResultSchema, 'The closed run\'s WorkflowResult, with an `ETag`'), 304: notModified, ...errorsFor(400, 401, 404, 424, 500, 503) }
    }
  }, async (request) => await fastify.runs.readResult({ workflowId: request.params.id, runId: request.params.rid }))
}

export default result
