/**
 * A run whose workflow task keeps failing is open but does not move (typically: its workflow code
 * changed so that its history no longer replays, after a deploy or a reset). The engine retries
 * the task forever and says so only through the pending task's attempt; the failure itself is
 * the last workflow task failure in the history (the engine records the first of a series).
 */
import protoRoot from '@temporalio/proto'
import type { Attention } from '../../../schemas/reset.js'
import type { RunRef } from './types.js'
import type { RunsContext } from './deps.js'

const { WorkflowTaskFailedCause } = protoRoot.temporal.api.enums.v1

/** How many events from the end are searched for the failure: the series is at the end of the history. */
const TAIL_EVENTS = 20

export async function readAttention ({ engine }: Pick<RunsContext, 'engine'>, run: RunRef, attempt: number | null | undefined, signal?: AbortSignal): Promise<Attention | null> {
  if (attempt == null || attempt < 2) return null
  const res = await engine.call(() => engine.client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: engine.namespace, execution: run, maximumPageSize: TAIL_EVENTS
  }), { signal, ...run })
  let message = 'the workflow task keeps failing'
  for (const event of res.history?.events ?? []) {
    const failed = event.workflowTaskFailedEventAttributes
    // The marker a reset leaves is not a failure of the code.
    if (failed?.failure && failed.cause !== WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW) {
      message = failed.failure.message ?? message
      break
    }
    if (event.workflowTaskTimedOutEventAttributes) { message = 'the workflow task keeps timing out (is a worker polling its catalog?)'; break }
  }
  return { kind: 'workflowTaskFailing', message, attempts: attempt }
}
