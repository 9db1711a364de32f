/**
 * GET /workflow/{id}/result and its pinned form. The latest-run form answers for the newest run
 * (after continue-as-new, the run that continued); the pinned form reads that run's own close
 * event and never follows a chain.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { RunParamsSchema, WorkflowParamsSchema, errorsFor, ref } from '../../schemas/common.js'
import { WorkflowResultSchema } from '../../schemas/workflow.js'
import { readResult } from '../../lib/workflow-result.js'
import { access } from '../../lib/http/access.js'
import { ConditionalReadHeadersSchema, notModified, withEtag } from '../../schemas/conditional.js'

const description = '200 for every final status (completed, failed, canceled, terminated, timed_out, continued_as_new); ' +
  '424 WorkflowNotCompletedError while the run is open; 404 for an unknown workflow or run. An input or output kept by reference ' +
  '(docs/large-payloads.md) and larger than SERVICE_PAYLOAD_INLINE_MAX_BYTES is not inline: `inputRef`/`outputRef` give a short-lived presigned download URL.'

const result: FastifyPluginAsyncTypebox = async (fastify) => {
  const response = { 200: withEtag(WorkflowResultSchema, 'The closed run\'s WorkflowResult, with an `ETag`'), 304: notModified, ...errorsFor(400, 401, 404, 424, 500, 503) }
  const config = { ...access('read', 'workflow'), etag: true as const }

  fastify.get('/workflow/:id/result', {
    config,
    schema: {
      tags: ['workflows'],
      operationId: 'getWorkflowResult',
      summary: 'Result of the latest run of a workflow id',
      description,
      params: ref(WorkflowParamsSchema),
      headers: ref(ConditionalReadHeadersSchema),
      response
    }
  }, async (request) => await readResult(fastify, { workflowId: request.params.id }))

  fastify.get('/workflow/:id/runs/:rid/result', {
    config,
    schema: {
      tags: ['workflows'],
      operationId: 'getRunResult',
      summary: 'Result of one run (never follows continue-as-new)',
      description,
      params: ref(RunParamsSchema),
      headers: ref(ConditionalReadHeadersSchema),
      response
    }
  }, async (request) => await readResult(fastify, { workflowId: request.params.id, runId: request.params.rid }))
}

export default result
