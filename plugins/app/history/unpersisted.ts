/**
 * Events the engine shows but has not written: while a workflow task keeps failing ("transient",
 * attempt 2 and up) or an update is offered ("speculative"), the engine appends that task's
 * Scheduled and Started events to the last page, numbered after the stored history. They vanish
 * when the task fails again and their ids go to the next events written (a terminate of a stuck
 * run takes the transient Scheduled's id). Handed out, they would break every later cursor
 * (docs/architecture.md, "The history stream").
 */
// @temporalio/proto is CommonJS: its named exports are not visible to ESM.
import protoRoot from '@temporalio/proto'
import type { temporal } from '@temporalio/proto'
import { eventIdOf, type RawEvent } from './events.js'

const { EventType, WorkflowExecutionStatus: Status } = protoRoot.temporal.api.enums.v1
/** A paused run is open: its last stored event may be a workflow task's. */
const OPEN = new Set<number>([Status.WORKFLOW_EXECUTION_STATUS_RUNNING, Status.WORKFLOW_EXECUTION_STATUS_PAUSED, Status.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED])

/**
 * A retried task (transient) or, unless the page answers a long-poll, any task (a speculative one
 * is attempt 1): a long-poll answer comes once events are stored, which stores a speculative task
 * with them. Only the history length the engine reports says whether the task is stored.
 */
export function mayEndWithUnstoredTask (events: RawEvent[], { newEventsAnswer }: { newEventsAnswer: boolean }): boolean {
  const last = events.at(-1)
  const scheduled = last?.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED ? events.at(-2) : last
  if (scheduled?.eventType !== EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) return false
  if (last !== scheduled && Number(last?.workflowTaskStartedEventAttributes?.scheduledEventId ?? 0) !== eventIdOf(scheduled)) return false
  return !newEventsAnswer || (scheduled.workflowTaskScheduledEventAttributes?.attempt ?? 1) > 1
}

/**
 * Judged by a describe made after the read: a task stored meanwhile is kept; one whose ids a close
 * took meanwhile is dropped (it cannot precede the close event it is numbered as).
 */
export function persistedOnly (events: RawEvent[], info: temporal.api.workflow.v1.IWorkflowExecutionInfo | null | undefined): RawEvent[] {
  const historyLength = Number(info?.historyLength ?? 0)
  // A closed run's last stored event is its close event, never a workflow task's.
  const closed = !OPEN.has(info?.status ?? Status.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED)
  const last = closed ? historyLength - 1 : historyLength
  return events.filter((e) => eventIdOf(e) <= last)
}
