/**
 * Graceful stop (PATCH …/stop) and forced termination (POST …/terminate), each for the latest run
 * of a workflow id and for a pinned run. Both answer 409 WorkflowAlreadyClosedError for a closed run.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { RunParamsSchema, WorkflowParamsSchema, errorsFor, ref } from '../../schemas/common.js'
import { StopBodySchema, StopResultSchema, TerminateBodySchema, TerminateResultSchema } from '../../schemas/control.js'
import { clientGone } from '../../lib/abort.js'
import { optionalBody, optionalBodySchema } from './optional-body.js'
import { stopRun, terminateRun } from '../../lib/control.js'

const stopDescription = 'Requests cancellation: the workflow\'s cleanup runs and the run ends `canceled`. Without ' +
  '`terminateAfterMs` the answer comes right after the request is recorded (outcome `cancel_requested`); with it the ' +
  'request waits for the run to close and terminates it when the deadline passes (outcome says which path was taken).'
const terminateDescription = 'Ends the run at once: no cleanup runs, the run ends `terminated` and its result says so ' +
  '(error names the reason).'

const control: FastifyPluginAsyncTypebox = async (fastify) => {
  const stopResponse = { 200: ref(StopResultSchema), ...errorsFor(400, 401, 404, 409, 413, 415, 500, 503) }
  const terminateResponse = { 200: ref(TerminateResultSchema), ...errorsFor(400, 401, 404, 409, 413, 415, 500, 503) }

  fastify.patch('/workflow/:id/stop', {
    ...optionalBody,
    schema: { ...optionalBodySchema, tags: ['workflows'], operationId: 'stopWorkflow', summary: 'Gracefully stop the latest run', description: stopDescription, params: ref(WorkflowParamsSchema), body: ref(StopBodySchema), response: stopResponse }
  }, async (request, reply) => await stopRun(fastify, { workflowId: request.params.id, terminateAfterMs: request.body?.terminateAfterMs, signal: clientGone(reply) }))

  fastify.patch('/workflow/:id/runs/:rid/stop', {
    ...optionalBody,
    schema: { ...optionalBodySchema, tags: ['workflows'], operationId: 'stopRun', summary: 'Gracefully stop one run', description: stopDescription, params: ref(RunParamsSchema), body: ref(StopBodySchema), response: stopResponse }
  }, async (request, reply) => await stopRun(fastify, {
    workflowId: request.params.id, runId: request.params.rid, terminateAfterMs: request.body?.terminateAfterMs, signal: clientGone(reply)
  }))

  fastify.post('/workflow/:id/terminate', {
    ...optionalBody,
    schema: { ...optionalBodySchema, tags: ['workflows'], operationId: 'terminateWorkflow', summary: 'Terminate the latest run', description: terminateDescription, params: ref(WorkflowParamsSchema), body: ref(TerminateBodySchema), response: terminateResponse }
  }, async (request, reply) => await terminateRun(fastify, { workflowId: request.params.id, reason: request.body?.reason, signal: clientGone(reply) }))

  fastify.post('/workflow/:id/runs/:rid/terminate', {
    ...optionalBody,
    schema: { ...optionalBodySchema, tags: ['workflows'], operationId: 'terminateRun', summary: 'Terminate one run', description: terminateDescription, params: ref(RunParamsSchema), body: ref(TerminateBodySchema), response: terminateResponse }
  }, async (request, reply) => await terminateRun(fastify, {
    workflowId: request.params.id, runId: request.params.rid, reason: request.body?.reason, signal: clientGone(reply)
  }))
}

export default control
