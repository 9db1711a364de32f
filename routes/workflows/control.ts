/** Stop, terminate and reset, each for the latest run of a workflow id and for a pinned run. */
import type { Static, TSchema } from '@sinclair/typebox'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { ResetBodySchema, ResetResultSchema } from '../../schemas/reset.js'
import { StopBodySchema, StopResultSchema, TerminateBodySchema, TerminateResultSchema } from '../../schemas/control.js'
import { latestAndPinned, runCall, type RunHandler, type RunRoute } from '../latest-and-pinned.js'
import { access } from '../../plugins/app/access/route-access.js'
import { RunPreconditionHeadersSchema } from '../../plugins/http/conditional/schema.js'

const stopDescription = 'Requests cancellation: the workflow\'s cleanup runs and the run ends `canceled`. Without ' +
  '`terminateAfterMs` the answer comes right after the request is recorded (outcome `cancel_requested`); with it the ' +
  'request waits for the run to close and terminates it when the deadline passes (outcome says which path was taken).'
const terminateDescription = 'Ends the run at once: no cleanup runs, the run ends `terminated` and its result says so ' +
  '(error names the reason).'
const resetDescription = 'Makes a new run of the workflow id that keeps the old run\'s history up to the reset point and continues from ' +
  'there: steps that completed before it are not run again (their results are replayed), the step at `from` and everything ' +
  'after it runs again. Works on failed, timed-out, terminated, canceled and completed runs; a running run is terminated by the ' +
  'engine and replaced by the new one. The old run\'s status then names the new one (`resetTo`), the new one\'s the old ' +
  '(`resetFrom`). A step that never ran in the run is a 400 listing the steps that did; a run without a usable reset point is a ' +
  '409 ResetNotPossibleError saying why. `If-Match` (the status ETag or `"<runId>"`) makes it a 412 PreconditionFailedError, ' +
  'with nothing sent to the engine, when the run it would reset is another one.'

const control: FastifyPluginAsyncTypebox = async (fastify) => {
  const route = <Body extends TSchema>(path: string, method: 'PATCH' | 'POST', description: string, names: Pick<RunRoute, 'latest' | 'pinned'>, body: Body, result: TSchema,
    handler: RunHandler<{ Body?: Static<Body>, Headers: { 'if-match'?: string } }>) => {
    latestAndPinned(fastify, path, {
      method,
      config: access('control', 'workflow'),
      optionalBody: true,
      description,
      ...names,
      schema: { headers: ref(RunPreconditionHeadersSchema), body: ref(body), response: { 200: ref(result), ...errorsFor(400, 401, 404, 409, 412, 413, 415, 500, 502, 503) } }
    }, handler)
  }

  route('/stop', 'PATCH', stopDescription, {
    latest: { operationId: 'stopWorkflow', summary: 'Gracefully stop the latest run' },
    pinned: { operationId: 'stopRun', summary: 'Gracefully stop one run' }
  }, StopBodySchema, StopResultSchema, async (request, reply) =>
    await fastify.control.stopRun({ ...runCall(request, reply), terminateAfterMs: request.body?.terminateAfterMs, reason: request.body?.reason }))

  route('/terminate', 'POST', terminateDescription, {
    latest: { operationId: 'terminateWorkflow', summary: 'Terminate the latest run' },
    pinned: { operationId: 'terminateRun', summary: 'Terminate one run' }
  }, TerminateBodySchema, TerminateResultSchema, async (request, reply) => await fastify.control.terminateRun({ ...runCall(request, reply), reason: request.body?.reason }))

  route('/reset', 'POST', resetDescription, {
    latest: { operationId: 'resetWorkflow', summary: 'Retry the latest run from a step' },
    pinned: { operationId: 'resetRun', summary: 'Retry one run from a step' }
  }, ResetBodySchema, ResetResultSchema, async (request, reply) =>
    await fastify.control.resetRun({ ...runCall(request, reply), from: request.body?.from, reason: request.body?.reason, reapply: request.body?.reapply }))
}

export default control
