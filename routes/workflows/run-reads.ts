/**
 * What a run is, for the latest run of a workflow id and for a pinned run: its status (in the one
 * vocabulary, and whether a worker would move it on), its result and its start input.
 */
import type { RouteGenericInterface } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { WorkflowInputSchema, WorkflowResultSchema, WorkflowStatusSchema } from '../../schemas/workflow.js'
import { access } from '../../plugins/app/access/route-access.js'
import { ConditionalReadHeadersSchema, notModified, withEtag } from '../../plugins/http/conditional/schema.js'
import { latestAndPinned, runOf, type RunHandler, type RunRoute } from '../latest-and-pinned.js'

/**
 * The latest-run form of the result answers for the newest run (after continue-as-new, the run that
 * continued); the pinned form reads that run's own close event and never follows a chain.
 */
const resultDescription = '200 for every final status (completed, failed, canceled, terminated, timed_out, continued_as_new); ' +
  '424 WorkflowNotCompletedError while the run is open; 404 for an unknown workflow or run. An input or output kept by reference ' +
  '(docs/large-payloads.md) and larger than SERVICE_PAYLOAD_INLINE_MAX_BYTES is not inline: `inputRef`/`outputRef` give a short-lived presigned download URL.'

const runReads: FastifyPluginAsyncTypebox = async (fastify) => {
  const read = (path: string, variants: Pick<RunRoute, 'latest' | 'pinned' | 'description'>, ok: TSchema, errors: Partial<ReturnType<typeof errorsFor>>,
    handler: RunHandler<RouteGenericInterface>, etag: true | 'run' = true) => {
    latestAndPinned(fastify, path, {
      method: 'GET',
      config: { ...access('read', 'workflow'), etag },
      ...variants,
      schema: { headers: ref(ConditionalReadHeadersSchema), response: { 200: ok, 304: notModified, ...errors } }
    }, handler)
  }

  read('/status', {
    latest: { operationId: 'getWorkflowStatus', summary: 'Status of the latest run of a workflow id' },
    pinned: { operationId: 'getRunStatus', summary: 'Status of one run' }
  }, withEtag(WorkflowStatusSchema, 'The run\'s status; its `ETag` (`"<runId>.<hash>"`) changes whenever anything in it changes, and names the run for `If-Match`'),
  errorsFor(400, 401, 404, 500, 502, 503), async (request) => await fastify.runs.readStatus(runOf(request)), 'run')

  read('/result', {
    description: resultDescription,
    latest: { operationId: 'getWorkflowResult', summary: 'Result of the latest run of a workflow id' },
    pinned: { operationId: 'getRunResult', summary: 'Result of one run (never follows continue-as-new)' }
  }, withEtag(WorkflowResultSchema, 'The closed run\'s WorkflowResult, with an `ETag`'), errorsFor(400, 401, 404, 424, 500, 502, 503),
  async (request) => await fastify.runs.readResult(runOf(request)))

  read('/input', {
    latest: { operationId: 'getWorkflowInput', summary: 'Start input of the latest run of a workflow id' },
    pinned: { operationId: 'getRunInput', summary: 'Start input of one run' }
  }, withEtag(WorkflowInputSchema, 'The run\'s start input, with an `ETag`'), errorsFor(400, 401, 404, 500, 502, 503),
  async (request) => await fastify.runs.readInput(runOf(request)))
}

export default runReads
