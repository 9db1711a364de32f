/**
 * Graceful stop (PATCH …/stop) and forced termination (POST …/terminate), each for the latest run
 * of a workflow id and for a pinned run. Both answer 409 WorkflowAlreadyClosedError for a closed run.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { StopBodySchema, StopResultSchema, TerminateBodySchema, TerminateResultSchema, type StopBody, type TerminateBody } from '../../schemas/control.js'
import { latestAndPinned, runCall } from './latest-and-pinned.js'
import { access } from '../../lib/http/access.js'
import { RunPreconditionHeadersSchema } from '../../schemas/conditional.js'

const stopDescription = 'Requests cancellation: the workflow\'s cleanup runs and the run ends `canceled`. Without ' +
  '`terminateAfterMs` the answer comes right after the request is recorded (outcome `cancel_requested`); with it the ' +
  'request waits for the run to close and terminates it when the deadline passes (outcome says which path was taken).'
const terminateDescription = 'Ends the run at once: no cleanup runs, the run ends `terminated` and its result says so ' +
  '(error names the reason).'

const control: FastifyPluginAsyncTypebox = async (fastify) => {
  const config = access('control', 'workflow')
  const headers = ref(RunPreconditionHeadersSchema)

  latestAndPinned<{ Body?: StopBody, Headers: { 'if-match'?: string } }>(fastify, '/stop', {
    method: 'PATCH',
    config,
    optionalBody: true,
    description: stopDescription,
    latest: { operationId: 'stopWorkflow', summary: 'Gracefully stop the latest run' },
    pinned: { operationId: 'stopRun', summary: 'Gracefully stop one run' },
    schema: { headers, body: ref(StopBodySchema), response: { 200: ref(StopResultSchema), ...errorsFor(400, 401, 404, 409, 412, 413, 415, 500, 503) } }
  }, async (request, reply) =>
    await fastify.control.stopRun({ ...runCall(request, reply), terminateAfterMs: request.body?.terminateAfterMs, reason: request.body?.reason }))

  latestAndPinned<{ Body?: TerminateBody, Headers: { 'if-match'?: string } }>(fastify, '/terminate', {
    method: 'POST',
    config,
    optionalBody: true,
    description: terminateDescription,
    latest: { operationId: 'terminateWorkflow', summary: 'Terminate the latest run' },
    pinned: { operationId: 'terminateRun', summary: 'Terminate one run' },
    schema: { headers, body: ref(TerminateBodySchema), response: { 200: ref(TerminateResultSchema), ...errorsFor(400, 401, 404, 409, 412, 413, 415, 500, 503) } }
  }, async (request, reply) => await fastify.control.terminateRun({ ...runCall(request, reply), reason: request.body?.reason }))
}

export default control
