/**
 * The engine's status names mapped onto the run statuses (core/src/run.ts).
 */
import type { WorkflowExecutionStatusName } from '@temporalio/client'
import type { Status } from '@flowport/core/run'

const byEngineName: Record<WorkflowExecutionStatusName, Status> = {
  RUNNING: 'running',
  PAUSED: 'paused',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'canceled',
  TERMINATED: 'terminated',
  CONTINUED_AS_NEW: 'continued_as_new',
  TIMED_OUT: 'timed_out',
  UNSPECIFIED: 'unknown',
  UNKNOWN: 'unknown'
}

export function statusFromEngine (name: WorkflowExecutionStatusName): Status {
  return byEngineName[name] ?? 'unknown'
}

/** The engine's status name for a visibility query, e.g. `ExecutionStatus = "Canceled"`. */
export const visibilityName: Record<Exclude<Status, 'unknown'>, string> = {
  running: 'Running',
  paused: 'Paused',
  completed: 'Completed',
  failed: 'Failed',
  canceled: 'Canceled',
  terminated: 'Terminated',
  continued_as_new: 'ContinuedAsNew',
  timed_out: 'TimedOut'
}
