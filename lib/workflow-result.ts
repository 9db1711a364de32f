/**
 * Builds a WorkflowResult from the close event of one run. Nothing here follows
 * a run chain: callers that want to (POST /workflow/run, the latest-run result) pick the run first.
 */
import type { FastifyInstance } from 'fastify'
import { decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js'
import type { ErrorDetails, WorkflowResult } from '../schemas/workflow.js'
import { ApiError } from './api-error.js'
import { closeKindOf, type HistoryEvent } from './close-events.js'
import { describeRun } from './execution.js'
import { closeDetails, failureDetails } from '@flowport/worker/failure'
import { decodeFirst, readCloseEvent, readRunInput, type RunRef } from './run-history.js'
import { isTerminal, statusFromEngine } from './status.js'
import type { TerminalStatus } from '../schemas/status.js'

interface Outcome {
  status: TerminalStatus
  output: unknown
  error: string | null
  errorDetails: ErrorDetails | null
}

const closedWith = (status: TerminalStatus, details: ErrorDetails): Outcome =>
  ({ status, output: null, error: details.message, errorDetails: details })

/** The outcome a close event records; throws for an event that does not close a run. */
export async function outcomeOf (fastify: FastifyInstance, event: HistoryEvent): Promise<Outcome> {
  const status = closeKindOf(event)?.status
  switch (status) {
    case 'completed':
      return { status: 'completed', output: await decodeFirst(fastify, event.workflowExecutionCompletedEventAttributes?.result), error: null, errorDetails: null }
    case 'failed': {
      const failure = event.workflowExecutionFailedEventAttributes?.failure
      const err = await decodeOptionalFailureToOptionalError(fastify.temporal.options.loadedDataConverter, failure)
      return closedWith('failed', err ? failureDetails(err) : closeDetails('Error', 'Workflow run failed'))
    }
    case 'canceled':
      return closedWith('canceled', closeDetails('CanceledFailure', 'Workflow run was canceled'))
    case 'terminated': {
      const reason = event.workflowExecutionTerminatedEventAttributes?.reason
      return closedWith('terminated', closeDetails('TerminatedFailure', reason ? `Workflow run was terminated: ${reason}` : 'Workflow run was terminated'))
    }
    case 'timed_out':
      return closedWith('timed_out', closeDetails('TimeoutFailure', 'Workflow run timed out (its execution or run timeout elapsed)'))
    case 'continued_as_new':
      // Not a failure: the run handed over to a new one; its result is that run's.
      return { status: 'continued_as_new', output: null, error: null, errorDetails: null }
    case undefined:
      throw new Error(`history event ${event.eventType ?? '?'} does not close a run`)
  }
}

export async function resultOf (fastify: FastifyInstance, run: RunRef, input: unknown, closeEvent: HistoryEvent): Promise<WorkflowResult> {
  const outcome = await outcomeOf(fastify, closeEvent)
  // Where the worker's trace keeper writes this run's trace (at its close; docs/traces.md).
  const trace = fastify.traces === null ? null : { destinations: fastify.traces.destinations(run.workflowId, run.runId) }
  return { workflowId: run.workflowId, runId: run.runId, input: input ?? null, trace, ...outcome }
}

export interface ReadResult {
  workflowId: string
  /** Pinned run; absent = the latest run (after continue-as-new: the newest run of the chain). */
  runId?: string
  signal?: AbortSignal
}

/** GET …/result: the result of a closed run, or 424 while it is open. */
export async function readResult (fastify: FastifyInstance, { workflowId, runId, signal }: ReadResult): Promise<WorkflowResult> {
  const execution = await describeRun(fastify, { workflowId, runId, signal })
  const run = { workflowId, runId: execution.runId }
  const status = statusFromEngine(execution.status.name)
  if (!isTerminal(status)) {
    throw new ApiError(424, 'WorkflowNotCompletedError', `Workflow ${workflowId} run ${run.runId} is not closed yet (status ${status})`, run)
  }
  const [input, closeEvent] = await Promise.all([readRunInput(fastify, run, signal), readCloseEvent(fastify, run, signal)])
  if (!closeEvent) throw new Error(`closed run ${run.runId} of ${workflowId} has no close event`)
  return await resultOf(fastify, run, input, closeEvent)
}
