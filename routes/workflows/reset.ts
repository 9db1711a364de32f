/**
 * POST …/reset: retry a run from a step (or from its start), for the latest run of a workflow id
 * and for a pinned run. The new run is the workflow id's latest run from then on.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { ResetBodySchema, ResetResultSchema, type ResetBody } from '../../schemas/reset.js'
import { access } from '../../lib/http/access.js'
import { latestAndPinned, runCall } from './latest-and-pinned.js'
import { RunPreconditionHeadersSchema } from '../../schemas/conditional.js'

const description = 'Makes a new run of the workflow id that keeps the old run\'s history up to the reset point and continues from ' +
  'there: steps that completed before it are not run again (their results are replayed), the step at `from` and everything ' +
  'after it runs again. Works on failed, timed-out, terminated, canceled and completed runs; a running run is terminated by the ' +
  'engine and replaced by the new one. The old run\'s status then names the new one (`resetTo`), the new one\'s the old ' +
  '(`resetFrom`). A step that never ran in the run is a 400 listing the steps that did; a run without a usable reset point is a ' +
  '409 ResetNotPossibleError saying why. `If-Match` (the status ETag or `"<runId>"`) makes it a 412 PreconditionFailedError, ' +
  'with nothing sent to the engine, when the run it would reset is another one.'

const reset: FastifyPluginAsyncTypebox = async (fastify) => {
  latestAndPinned<{ Body?: ResetBody, Headers: { 'if-match'?: string } }>(fastify, '/reset', {
    method: 'POST',
    config: access('control', 'workflow'),
    optionalBody: true,
    description,
    latest: { operationId: 'resetWorkflow', summary: 'Retry the latest run from a step' },
    pinned: { operationId: 'resetRun', summary: 'Retry one run from a step' },
    schema: { headers: ref(RunPreconditionHeadersSchema), body: ref(ResetBodySchema), response: { 200: ref(ResetResultSchema), ...errorsFor(400, 401, 404, 409, 412, 413, 415, 500, 503) } }
  }, async (request, reply) =>
    await fastify.control.resetRun({ ...runCall(request, reply), from: request.body?.from, reason: request.body?.reason, reapply: request.body?.reapply }))
}

export default reset
