/**
 * POST /workflow/run: start, then wait for the result. The wait long-polls the run's close event
 * with the request's deadline, so no timer outlives the request, and follows continue-as-new to
 * the last run of the chain. A client that disconnects (`signal`) ends the wait and its engine
 * calls, never the workflow. POST /workflow/start with `Prefer: wait` waits the same way.
 */
import type { RunWorkflowBody, WorkflowResult } from '../../../schemas/workflow.js'
import { ApiError } from '../../../lib/api-error.js'
import { continuedAs, timedOut, type CloseWait, type RunStart } from '../engine/index.js'
import type { RunRef } from '@flowport/core/run'
import type { StartDeps } from './deps.js'
import { startWorkflow, type Started, type StartOptions } from './start-workflow.js'
import { updateWithStart } from './update-with-start.js'

export async function runWorkflow (deps: StartDeps, body: RunWorkflowBody, signal: AbortSignal, options: Omit<StartOptions, 'signal'> = {}): Promise<WorkflowResult> {
  const { SERVICE_RUN_TIMEOUT_MS, SERVICE_RUN_MAX_TIMEOUT_MS } = deps.config
  const timeout = Math.min(body.timeout ?? SERVICE_RUN_TIMEOUT_MS, SERVICE_RUN_MAX_TIMEOUT_MS)
  const deadline = Date.now() + timeout
  // With `update`, the run that took the update is waited for; it may be one already open, started
  // with another input (its Started has no input: waitForResult reads it).
  const { update } = body
  const started = update === undefined
    ? await startWorkflow(deps, body, { ...options, signal })
    : (await updateWithStart(deps, { ...body, update }, { ...options, signal })).run
  const result = await waitForResult(deps, started, { signal, deadline })
  if ('open' in result) {
    throw new ApiError(408, 'WorkflowExecutionTimedOutError',
      `Workflow ${started.workflowId} did not close within ${timeout} ms; it keeps running: read GET /workflow/${started.workflowId}/result later`, result.open)
  }
  return result
}

/** The deadline passed while this run of the chain was still open. */
export interface StillOpen { open: RunRef }

/**
 * The result of the last run of the chain that starts with `run` (started as `workflowName` with
 * `input`; an undefined input: both read from the run's history, as for an `inputRef` start or the
 * open run an update-with-start found), or the run open at the deadline.
 */
export async function waitForResult (deps: Pick<StartDeps, 'runs' | 'payloads'>, run: Pick<Started, 'workflowId' | 'runId' | 'workflowName' | 'input'>, wait: CloseWait): Promise<WorkflowResult | StillOpen> {
  let current = { workflowId: run.workflowId, runId: run.runId }
  let start: RunStart | undefined = run.input === undefined ? undefined : { type: run.workflowName, input: run.input }
  for (;;) {
    const event = await deps.runs.waitForCloseEvent(current, wait)
    if (event === timedOut) return { open: current }
    const next = continuedAs(event)
    if (next === undefined) return await deps.runs.resultOf(current, start ?? await deps.runs.readRunStart(current, wait.signal), event)
    // The continue-as-new event carries the next run's workflow type and input: no extra read.
    const continued = event.workflowExecutionContinuedAsNewEventAttributes
    start = { type: continued?.workflowType?.name ?? undefined, input: await deps.payloads.decodeFirstValue(continued?.input) }
    current = { workflowId: current.workflowId, runId: next }
  }
}
