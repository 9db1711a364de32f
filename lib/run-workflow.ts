/**
 * POST /workflow/run: start, then wait for the result. The wait long-polls the run's close event
 * with the request's deadline, so no timer outlives the request, and follows continue-as-new to
 * the last run of the chain. A client that disconnects (`signal`) ends the wait and its engine
 * calls, never the workflow.
 */
import type { FastifyInstance } from 'fastify'
import type { RunWorkflowBody, WorkflowResult } from '../schemas/workflow.js'
import { ApiError } from './api-error.js'
import { continuedAs } from './close-events.js'
import { decodeFirst, timedOut, waitForCloseEvent } from './run-history.js'
import { startWorkflow } from './start-workflow.js'
import { resultOf } from './workflow-result.js'

export async function runWorkflow (fastify: FastifyInstance, body: RunWorkflowBody, signal: AbortSignal, identity?: string): Promise<WorkflowResult> {
  const { SERVICE_RUN_TIMEOUT_MS, SERVICE_RUN_MAX_TIMEOUT_MS } = fastify.config
  const timeout = Math.min(body.timeout ?? SERVICE_RUN_TIMEOUT_MS, SERVICE_RUN_MAX_TIMEOUT_MS)
  const deadline = Date.now() + timeout
  const started = await startWorkflow(fastify, body, signal, identity)
  let current = { workflowId: started.workflowId, runId: started.runId }
  let input: unknown = body.input
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
}
