/**
 * One status vocabulary for the whole API (DESIGN.md §4.3): lower-case, `canceled` with one L,
 * plus `paused` (Temporal 1.28+ can pause a run) and `unknown` for codes newer than this SDK.
 */
import type { WorkflowExecutionStatusName } from '@temporalio/client'

export const TERMINAL_STATUSES = ['completed', 'failed', 'canceled', 'terminated', 'timed_out', 'continued_as_new'] as const
export const STATUSES = ['running', 'paused', ...TERMINAL_STATUSES, 'unknown'] as const

export type TerminalStatus = typeof TERMINAL_STATUSES[number]
export type Status = typeof STATUSES[number]

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
