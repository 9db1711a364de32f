/**
 * The events that close a run: for each, the status it leaves the run in and the reason a
 * stream's `done` names. Results, waits and streams all read a close event through this table.
 */
import type { temporal } from '@temporalio/proto'
import type { TerminalReason } from '../../../../schemas/history.js'
import type { TerminalStatus } from '@flowport/core/run'
import { closeStatusOf } from '@flowport/core/outcome'

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent

export interface CloseKind {
  status: TerminalStatus
  reason: TerminalReason
  /** The event's attributes, which name the next run when the close chains one (continue-as-new, cron, retry). */
  attributes: keyof HistoryEvent
}

const CLOSE_KINDS: Record<TerminalStatus, Omit<CloseKind, 'status'>> = {
  completed: { reason: 'WORKFLOW_EXECUTION_COMPLETED', attributes: 'workflowExecutionCompletedEventAttributes' },
  failed: { reason: 'WORKFLOW_EXECUTION_FAILED', attributes: 'workflowExecutionFailedEventAttributes' },
  timed_out: { reason: 'WORKFLOW_EXECUTION_TIMED_OUT', attributes: 'workflowExecutionTimedOutEventAttributes' },
  canceled: { reason: 'WORKFLOW_EXECUTION_CANCELED', attributes: 'workflowExecutionCanceledEventAttributes' },
  terminated: { reason: 'WORKFLOW_EXECUTION_TERMINATED', attributes: 'workflowExecutionTerminatedEventAttributes' },
  continued_as_new: { reason: 'WORKFLOW_EXECUTION_CONTINUED_AS_NEW', attributes: 'workflowExecutionContinuedAsNewEventAttributes' }
}

/** What `event` closes the run as (core/src/outcome.ts reads the status from its type); undefined for an event that does not close it. */
export function closeKindOf (event: HistoryEvent): CloseKind | undefined {
  const status = closeStatusOf(event)
  return status === undefined ? undefined : { status, ...CLOSE_KINDS[status] }
}

export function isCloseEvent (event: HistoryEvent): boolean {
  return closeKindOf(event) !== undefined
}

/** The run a close event chains to (continue-as-new, cron, retry), if any. */
export function nextRunOf (event: HistoryEvent): string | undefined {
  const kind = closeKindOf(event)
  const attributes = kind && event[kind.attributes] as { newExecutionRunId?: string | null } | null | undefined
  return attributes?.newExecutionRunId || undefined
}

/** The run a continue-as-new close event hands over to; undefined for every other close. */
export function continuedAs (event: HistoryEvent): string | undefined {
  return closeKindOf(event)?.status === 'continued_as_new' ? nextRunOf(event) : undefined
}
