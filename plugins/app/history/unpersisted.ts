/**
 * Events the engine shows but has not written. While a run's workflow task keeps failing (a
 * "transient" task, attempt 2 and up) or an update is offered to the workflow (a "speculative"
 * task), the engine appends that task's WorkflowTaskScheduled and WorkflowTaskStarted events to
 * the last page of the history it answers, numbered after the persisted history, without storing
 * them. They vanish when the task fails again, and their ids go to the next events really written
 * (a reset or terminate of a stuck run writes its WorkflowExecutionTerminated where the transient
 * WorkflowTaskScheduled was). Handed out with ids, they would break every cursor after them, so
 * the history reads keep to the persisted events (docs/architecture.md, "The history stream").
 */
// @temporalio/proto is CommonJS: its named exports are not visible to ESM.
import protoRoot from '@temporalio/proto'
import type { temporal } from '@temporalio/proto'
import { eventIdOf, type RawEvent } from './events.js'

const { EventType, WorkflowExecutionStatus: Status } = protoRoot.temporal.api.enums.v1
/** A paused run is open: its last stored event may be a workflow task's. */
const OPEN = new Set<number>([Status.WORKFLOW_EXECUTION_STATUS_RUNNING, Status.WORKFLOW_EXECUTION_STATUS_PAUSED, Status.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED])

/**
 * Whether the page may end with such a task: a WorkflowTaskScheduled, or one and its
 * WorkflowTaskStarted, of a retried task (attempt 2 and up: transient) or, unless the page answers
 * a long-poll for new events, of any task (a speculative one is attempt 1). Such an answer comes
 * once events are stored, and storing events stores a speculative task with them. Whether the
 * task is stored only the engine knows: the run's history length says.
 */
export function mayEndWithUnstoredTask (events: RawEvent[], { newEventsAnswer }: { newEventsAnswer: boolean }): boolean {
  const last = events.at(-1)
  const scheduled = last?.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED ? events.at(-2) : last
  if (scheduled?.eventType !== EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) return false
  if (last !== scheduled && Number(last?.workflowTaskStartedEventAttributes?.scheduledEventId ?? 0) !== eventIdOf(scheduled)) return false
  return !newEventsAnswer || (scheduled.workflowTaskScheduledEventAttributes?.attempt ?? 1) > 1
}

/**
 * The events the engine had stored, judged by a describe's execution info made after the read: a
 * task stored meanwhile is kept (it is the same event), and one whose ids a close took meanwhile (a
 * reset or terminate of the stuck run) is dropped, since it cannot precede a close event it is numbered as.
 */
export function persistedOnly (events: RawEvent[], info: temporal.api.workflow.v1.IWorkflowExecutionInfo | null | undefined): RawEvent[] {
  const historyLength = Number(info?.historyLength ?? 0)
  // A closed run's last stored event is its close event, never a workflow task's.
  const closed = !OPEN.has(info?.status ?? Status.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED)
  const last = closed ? historyLength - 1 : historyLength
  return events.filter((e) => eventIdOf(e) <= last)
}
