/**
 * The engine's status names mapped onto the API's status vocabulary (schemas/status.ts).
 */
import type { WorkflowExecutionStatusName } from '@temporalio/client'
import { TERMINAL_STATUSES, type TerminalStatus } from '@flowport/core/run-status'
import type { Status } from '../../../schemas/status.js'

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

export function isTerminal (status: Status): status is TerminalStatus {
  return (TERMINAL_STATUSES as readonly string[]).includes(status)
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

/** ISO-8601 or null: the one time format of the API. */
export function isoOrNull (date: Date | undefined | null): string | null {
  return date ? date.toISOString() : null
}
