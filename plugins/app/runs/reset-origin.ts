/**
 * Whether a run was made by a reset, and from where: the engine marks the reset point in the new
 * run's history with a workflow task failure of cause RESET_WORKFLOW naming the old run and the new
 * one. A run's origin never changes, so it is read once and kept with a closed run's describe.
 */
import protoRoot from '@temporalio/proto'
import type { ResetPoint } from '../../../schemas/reset.js'
import { type HistoryEvent, stepAfter } from '../engine/index.js'
import type { RunsContext } from './deps.js'
import type { RunRef } from '@flowport/core/run'

const { WorkflowTaskFailedCause } = protoRoot.temporal.api.enums.v1

/** The reset point recorded in a run's history: the one that made this run (a history may hold earlier ones, copied). */
export function resetPointIn (events: HistoryEvent[], runId: string): ResetPoint | null {
  const marker = events.find((e) => {
    const failed = e.workflowTaskFailedEventAttributes
    return failed?.cause === WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW && failed.newRunId === runId
  })
  const base = marker?.workflowTaskFailedEventAttributes?.baseRunId
  if (!marker || !base) return null
  const eventId = Number(marker.eventId)
  return { runId: base, eventId, step: stepAfter(events, eventId) }
}

/** Reads the run's history until its reset point and the step after it. */
export async function readResetFrom ({ engine }: Pick<RunsContext, 'engine'>, run: RunRef, signal?: AbortSignal): Promise<ResetPoint | null> {
  const events: HistoryEvent[] = []
  let nextPageToken: Uint8Array | undefined
  do {
    const res = await engine.call(() => engine.client.workflowService.getWorkflowExecutionHistory({
      namespace: engine.namespace, execution: run, nextPageToken, skipArchival: true
    }), { signal, ...run })
    events.push(...(res.history?.events ?? []))
    const point = resetPointIn(events, run.runId)
    if (point !== null && point.step !== null) return point
    nextPageToken = res.nextPageToken?.length ? res.nextPageToken : undefined
  } while (nextPageToken !== undefined)
  return resetPointIn(events, run.runId)
}
