/**
 * The wait long-polls the close event with the request's deadline, so no timer outlives the
 * request; a client that disconnects ends the wait and its engine calls, never the workflow.
 */
import type { RunWorkflowBody, WorkflowResult } from '../../../schemas/workflow.js'
import { ApiError } from '../../../lib/api-error.js'
import { continuedAs, timedOut, type CloseWait, type RunStart } from '../engine/index.js'
import type { RunRef } from '@flowport/core/run'
import type { StartDeps } from './deps.js'
import type { StartActions, Started, StartOptions } from './start-workflow.js'
import type { UpdateActions } from './update-with-start.js'

export interface StillOpen { open: RunRef }

export function runActions ({ runs, payloads, config }: StartDeps, { startWorkflow, updateWithStart }: StartActions & UpdateActions) {
  async function runWorkflow (body: RunWorkflowBody, signal: AbortSignal, options: Omit<StartOptions, 'signal'> = {}): Promise<WorkflowResult> {
    const { SERVICE_RUN_TIMEOUT_MS, SERVICE_RUN_MAX_TIMEOUT_MS } = config
    const timeout = Math.min(body.timeout ?? SERVICE_RUN_TIMEOUT_MS, SERVICE_RUN_MAX_TIMEOUT_MS)
    const deadline = Date.now() + timeout
    const { update } = body
    const started = update === undefined
      ? await startWorkflow(body, { ...options, signal })
      : (await updateWithStart({ ...body, update }, { ...options, signal })).run
    const result = await waitForResult(started, { signal, deadline })
    if ('open' in result) {
      throw new ApiError(408, 'WorkflowExecutionTimedOutError',
        `Workflow ${started.workflowId} did not close within ${timeout} ms; it keeps running: read GET /workflow/${started.workflowId}/result later`, result.open)
    }
    return result
  }

  /** An undefined input is read from the run's history (an `inputRef` start, or the open run an update-with-start found). */
  async function waitForResult (run: Pick<Started, 'workflowId' | 'runId' | 'workflowName' | 'catalog' | 'input'>, wait: CloseWait): Promise<WorkflowResult | StillOpen> {
    let current = { workflowId: run.workflowId, runId: run.runId }
    let start: RunStart | undefined = run.input === undefined ? undefined : { type: run.workflowName, input: run.input, taskQueue: run.catalog }
    for (;;) {
      const event = await runs.waitForCloseEvent(current, wait)
      if (event === timedOut) return { open: current }
      const next = continuedAs(event)
      if (next === undefined) return await runs.resultOf(current, start ?? await runs.readRunStart(current, wait.signal), event)
      // The continue-as-new event carries the next run's workflow type and input: no extra read.
      const continued = event.workflowExecutionContinuedAsNewEventAttributes
      start = { type: continued?.workflowType?.name ?? undefined, input: await payloads.decodeFirstValue(continued?.input), taskQueue: continued?.taskQueue?.name ?? undefined }
      current = { workflowId: current.workflowId, runId: next }
    }
  }

  return { runWorkflow, waitForResult }
}
