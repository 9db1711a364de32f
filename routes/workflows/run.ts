/**
 * POST /workflow/run: start, wait for the result, answer it. The wait long-polls the run's close
 * event with a deadline of `timeout`, so no timer outlives the request, and a client that
 * disconnects ends the wait and its engine calls (never the workflow).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { RunWorkflowBodySchema, WorkflowResultSchema } from '../../schemas/workflow.js'
import { ApiError } from '../../lib/api-error.js'
import { clientGone } from '../../lib/abort.js'
import { continuedAs, decodeFirst, timedOut, waitForCloseEvent } from '../../lib/run-history.js'
import { startWorkflow } from '../../lib/start.js'
import { resultOf } from '../../lib/workflow-result.js'

const run: FastifyPluginAsyncTypebox = async (fastify) => {
  const { SERVICE_RUN_TIMEOUT_MS, SERVICE_RUN_MAX_TIMEOUT_MS } = fastify.config

  fastify.post('/workflow/run', {
    schema: {
      tags: ['workflows'],
      operationId: 'runWorkflow',
      summary: 'Start a workflow and wait for its result',
      description: 'Answers the WorkflowResult once the run closes: 200 for every final status, including `failed` ' +
        '(with error and errorDetails). A run that continues as new is followed: the answer is the result of the last ' +
        'run of the chain (its runId and input), the same as GET /workflow/{id}/result afterwards. ' +
        '408 WorkflowExecutionTimedOutError when `timeout` elapses first: the workflow keeps running and its result ' +
        'can be read later. Errors before the start as for POST /workflow/start.',
      body: ref(RunWorkflowBodySchema),
      response: { 200: ref(WorkflowResultSchema), ...errorsFor(400, 401, 404, 408, 409, 413, 415, 500, 503) }
    }
  }, async (request, reply) => {
    const signal = clientGone(reply)
    const timeout = Math.min(request.body.timeout ?? SERVICE_RUN_TIMEOUT_MS, SERVICE_RUN_MAX_TIMEOUT_MS)
    const deadline = Date.now() + timeout
    try {
      const started = await startWorkflow(fastify, request.body, signal)
      let current = { workflowId: started.workflowId, runId: started.runId }
      let input: unknown = request.body.input
      for (;;) {
        const event = await waitForCloseEvent(fastify, current, { signal, deadline })
        if (event === timedOut) {
          throw new ApiError(408, 'WorkflowExecutionTimedOutError',
            `Workflow ${current.workflowId} did not close within ${timeout} ms; it keeps running: read GET /workflow/${current.workflowId}/result later`, current)
        }
        const next = continuedAs(event)
        if (next === undefined) return await resultOf(fastify, current, input, event)
        // The continue-as-new event carries the next run's input: no extra read.
        input = await decodeFirst(fastify, event.workflowExecutionContinuedAsNewEventAttributes?.input)
        current = { workflowId: current.workflowId, runId: next }
      }
    } catch (err) {
      if (!signal.aborted) throw err
      // Nobody is left to answer; the workflow is not touched.
      request.log.info({ workflowId: request.body.workflowId }, 'client disconnected: stopped waiting for the run')
      return reply.hijack()
    }
  })
}

export default run
