/**
 * POST /workflow/run (plugins/app/starts/run-workflow.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { RunWorkflowBodySchema, RunWorkflowHeadersSchema, WorkflowResultSchema } from '../../schemas/workflow.js'
import { idempotencyKeyOf } from '../../lib/http/idempotency-key.js'
import { clientGone } from '../../lib/abort.js'
import { access, starterOf } from '../../lib/http/access.js'

const run: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/workflow/run', {
    config: access('run', 'start'),
    schema: {
      tags: ['workflows'],
      operationId: 'runWorkflow',
      summary: 'Start a workflow and wait for its result',
      description: 'Answers the WorkflowResult once the run closes: 200 for every final status, including `failed` ' +
        '(with error and errorDetails). A run that continues as new is followed: the answer is the result of the last ' +
        'run of the chain (its runId and input), the same as GET /workflow/{id}/result afterwards. ' +
        '408 WorkflowExecutionTimedOutError when `timeout` elapses first: the workflow keeps running and its result ' +
        'can be read later. Errors before the start as for POST /workflow/start. With `Idempotency-Key`, a retry waits for the ' +
        'run the key started (and answers its result once closed) instead of starting another; 422 when the body differs. ' +
        'An input or output kept by reference and larger than SERVICE_PAYLOAD_INLINE_MAX_BYTES comes as `inputRef`/`outputRef`, a presigned download. ' +
        'With `update` (update-with-start): an open run of the workflow id receives the update instead of a new run starting, and the ' +
        'answer is the result of the run that took it; a rejected or failed update is a 422 naming the run.',
      headers: ref(RunWorkflowHeadersSchema),
      body: ref(RunWorkflowBodySchema),
      response: { 200: ref(WorkflowResultSchema), ...errorsFor(400, 401, 404, 408, 409, 413, 415, 422, 500, 503) }
    }
  }, async (request, reply) => {
    const signal = clientGone(reply)
    try {
      return await fastify.starts.runWorkflow(request.body, signal, { idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']), ...starterOf(request) })
    } catch (err) {
      if (!signal.aborted) throw err
      // Nobody is left to answer; the workflow is not touched.
      request.log.info({ workflowId: request.body.workflowId }, 'client disconnected: stopped waiting for the run')
      return reply.hijack()
    }
  })
}

export default run
