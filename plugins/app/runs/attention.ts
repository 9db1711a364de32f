/**
 * Why an open run does not move. A workflow task that keeps failing (code that no longer replays
 * its history, after a deploy or a reset) is retried forever and shown only through the pending
 * task's attempt; the failure is the last one in the history (the engine records the first of a
 * series). A run pinned to a version none of whose workers polls waits however many others poll.
 */
import protoRoot from '@temporalio/proto'
import { stepNameOf } from '@flowport/core/steps'
import type { Attention } from '../../../schemas/reset.js'
import type { RunRef } from '@flowport/core/run'
import type { RunsContext } from './deps.js'
import type { Execution } from './types.js'
import type { WorkflowStatus } from '../../../schemas/workflow.js'

const { WorkflowTaskFailedCause } = protoRoot.temporal.api.enums.v1

/** The series is at the end of the history. */
const TAIL_EVENTS = 20

export async function readAttention ({ engine }: Pick<RunsContext, 'engine'>, run: RunRef, { type, workflowTaskAttempt: attempt }: Pick<Execution, 'type' | 'workflowTaskAttempt'>, signal?: AbortSignal): Promise<Attention | null> {
  if (attempt == null || attempt < 2) return null
  const res = await engine.call(() => engine.client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: engine.namespace, execution: run, maximumPageSize: TAIL_EVENTS
  }), { signal, ...run })
  let message = 'the workflow task keeps failing'
  const events = res.history?.events ?? []
  for (const event of events) {
    const failed = event.workflowTaskFailedEventAttributes
    // The marker a reset leaves is not a failure of the code.
    if (failed?.failure && failed.cause !== WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW) {
      message = failed.failure.message ?? message
      break
    }
    if (event.workflowTaskTimedOutEventAttributes) { message = 'the workflow task keeps timing out (is a worker polling its catalog?)'; break }
  }
  return { kind: 'workflowTaskFailing', message, attempts: attempt, remedy: fixThenReset(lastStep(events, type)) }
}

/** Newest first in a reversed history. */
function lastStep (events: ReadonlyArray<{ activityTaskScheduledEventAttributes?: { activityType?: { name?: string | null } | null } | null }>, workflowType: string): string | null {
  for (const event of events) {
    const type = event.activityTaskScheduledEventAttributes?.activityType?.name
    if (type) return stepNameOf(type, workflowType)
  }
  return null
}

const fixThenReset = (step: string | null) =>
  'Deploy a fix to the workflow code: the engine retries the task with it and the run moves on. If the fixed code cannot ' +
  `replay what the run already did (a nondeterminism error), reset the run ${step ? `from \`${step}\`` : 'from the step where the code changed'} ` +
  '(POST /workflow/{id}/reset): the steps before it keep their results'

export function versionNotPolled ({ versioning, version, workersPolling }: Pick<WorkflowStatus, 'versioning' | 'version' | 'workersPolling'>): Attention | null {
  if (versioning !== 'pinned' || version === null || workersPolling !== false) return null
  return {
    kind: 'versionNotPolled',
    message: `The run is pinned to version ${version.buildId} of worker deployment ${version.deploymentName}, and none of its workers polls: ` +
      'it moves again once one does, whatever other versions run',
    attempts: null,
    remedy: `Start a worker of build ${version.buildId} (deployment ${version.deploymentName}), or move the run to a version whose workers poll`
  }
}
