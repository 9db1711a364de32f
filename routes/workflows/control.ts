/**
 * Graceful stop (PATCH …/stop) and forced termination (POST …/terminate), each for the latest run
 * of a workflow id and for a pinned run. Both answer 409 WorkflowAlreadyClosedError for a closed run.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { RunParamsSchema, WorkflowParamsSchema, errorsFor, ref } from '../../schemas/common.js'
import { StopBodySchema, StopResultSchema, TerminateBodySchema, TerminateResultSchema, type StopBody, type TerminateBody } from '../../schemas/control.js'
import { clientGone } from '../../lib/abort.js'
import { optionalBody, optionalBodySchema } from './optional-body.js'
import { stopRun, terminateRun } from '../../lib/control.js'
import { access, engineIdentity } from '../../lib/http/access.js'
import type { Principal } from '../../plugins/app/access/principal.js'
import { RunPreconditionHeadersSchema } from '../../schemas/conditional.js'

const stopDescription = 'Requests cancellation: the workflow\'s cleanup runs and the run ends `canceled`. Without ' +
  '`terminateAfterMs` the answer comes right after the request is recorded (outcome `cancel_requested`); with it the ' +
  'request waits for the run to close and terminates it when the deadline passes (outcome says which path was taken).'
const terminateDescription = 'Ends the run at once: no cleanup runs, the run ends `terminated` and its result says so ' +
  '(error names the reason).'

/** The latest-run and pinned forms differ only in `rid`. */
interface RunRequest<B> { params: { id: string, rid?: string }, headers: { 'if-match'?: string }, body?: B, principal: Principal | null }

const runCall = (request: RunRequest<unknown>, reply: FastifyReply) =>
  ({ workflowId: request.params.id, runId: request.params.rid, signal: clientGone(reply), identity: engineIdentity(request), ifMatch: request.headers['if-match'] })

const control: FastifyPluginAsyncTypebox = async (fastify) => {
  const stopResponse = { 200: ref(StopResultSchema), ...errorsFor(400, 401, 404, 409, 412, 413, 415, 500, 503) }
  const terminateResponse = { 200: ref(TerminateResultSchema), ...errorsFor(400, 401, 404, 409, 412, 413, 415, 500, 503) }
  const headers = ref(RunPreconditionHeadersSchema)

  const stop = async (request: RunRequest<StopBody>, reply: FastifyReply) =>
    await stopRun(fastify, { ...runCall(request, reply), terminateAfterMs: request.body?.terminateAfterMs, reason: request.body?.reason })
  const terminate = async (request: RunRequest<TerminateBody>, reply: FastifyReply) =>
    await terminateRun(fastify, { ...runCall(request, reply), reason: request.body?.reason })

  fastify.patch('/workflow/:id/stop', {
    config: access('control', 'workflow'),
    ...optionalBody,
    schema: { ...optionalBodySchema, tags: ['workflows'], operationId: 'stopWorkflow', summary: 'Gracefully stop the latest run', description: stopDescription, params: ref(WorkflowParamsSchema), headers, body: ref(StopBodySchema), response: stopResponse }
  }, stop)

  fastify.patch('/workflow/:id/runs/:rid/stop', {
    config: access('control', 'workflow'),
    ...optionalBody,
    schema: { ...optionalBodySchema, tags: ['workflows'], operationId: 'stopRun', summary: 'Gracefully stop one run', description: stopDescription, params: ref(RunParamsSchema), headers, body: ref(StopBodySchema), response: stopResponse }
  }, stop)

  fastify.post('/workflow/:id/terminate', {
    config: access('control', 'workflow'),
    ...optionalBody,
    schema: { ...optionalBodySchema, tags: ['workflows'], operationId: 'terminateWorkflow', summary: 'Terminate the latest run', description: terminateDescription, params: ref(WorkflowParamsSchema), headers, body: ref(TerminateBodySchema), response: terminateResponse }
  }, terminate)

  fastify.post('/workflow/:id/runs/:rid/terminate', {
    config: access('control', 'workflow'),
    ...optionalBody,
    schema: { ...optionalBodySchema, tags: ['workflows'], operationId: 'terminateRun', summary: 'Terminate one run', description: terminateDescription, params: ref(RunParamsSchema), headers, body: ref(TerminateBodySchema), response: terminateResponse }
  }, terminate)
}

export default control
