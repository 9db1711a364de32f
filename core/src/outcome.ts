/**
 * The outcome a run's close event records (status, output, error, errorDetails): one home for the
 * API's WorkflowResult (plugins/app/runs/workflow-result.ts) and the completion webhook's body
 * (worker/src/webhook/activities.ts), so both say the same about one run.
 */
import type { LoadedDataConverter } from '@temporalio/common'
import { decodeFromPayloadsAtIndex, decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js'
// @temporalio/proto is CommonJS: its named exports are not visible to ESM.
import protoRoot, { type temporal } from '@temporalio/proto'
import { closeDetails, failureDetails, type ErrorDetails } from './failure-chain.js'
import type { TerminalStatus } from './run.js'

type HistoryEvent = temporal.api.history.v1.IHistoryEvent

export interface Outcome {
  status: TerminalStatus
  output: unknown
  error: string | null
  errorDetails: ErrorDetails | null
}

const { EventType } = protoRoot.temporal.api.enums.v1

/** The status each event that closes a run leaves it in. */
const CLOSE_STATUS = new Map<number, TerminalStatus>([
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, 'completed'],
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, 'failed'],
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, 'timed_out'],
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, 'canceled'],
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, 'terminated'],
  [EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW, 'continued_as_new']
])

/** What `event` closes the run as; undefined for an event that does not close it. */
export const closeStatusOf = (event: HistoryEvent): TerminalStatus | undefined =>
  event.eventType == null ? undefined : CLOSE_STATUS.get(event.eventType)

const closedWith = (status: TerminalStatus, details: ErrorDetails): Outcome =>
  ({ status, output: null, error: details.message, errorDetails: details })

/** Decodes the first value of a payload list; absent or `undefined` becomes null. */
export async function decodeFirstPayload (converter: LoadedDataConverter, payloads: temporal.api.common.v1.IPayloads | null | undefined): Promise<unknown> {
  return (await decodeFromPayloadsAtIndex(converter, 0, payloads?.payloads)) ?? null
}

/** The outcome of a close event; throws for an event that closes nothing. */
export async function closeOutcome (converter: LoadedDataConverter, event: HistoryEvent): Promise<Outcome> {
  const status = closeStatusOf(event)
  switch (status) {
    case 'completed':
      return { status: 'completed', output: await decodeFirstPayload(converter, event.workflowExecutionCompletedEventAttributes?.result), error: null, errorDetails: null }
    case 'failed': {
      const err = await decodeOptionalFailureToOptionalError(converter, event.workflowExecutionFailedEventAttributes?.failure)
      return closedWith('failed', err ? failureDetails(err) : closeDetails('Error', 'Workflow run failed'))
    }
    case 'canceled':
      return closedWith('canceled', closeDetails('CanceledFailure', 'Workflow run was canceled'))
    case 'terminated': {
      const reason = event.workflowExecutionTerminatedEventAttributes?.reason
      return closedWith('terminated', closeDetails('TerminatedFailure', reason ? `Workflow run was terminated: ${reason}` : 'Workflow run was terminated'))
    }
    case 'timed_out':
      return closedWith('timed_out', closeDetails('TimeoutFailure', 'Workflow run timed out (its execution or run timeout elapsed)'))
    case 'continued_as_new':
      // Not a failure: the run handed over to a new one; its result is that run's.
      return { status: 'continued_as_new', output: null, error: null, errorDetails: null }
    case undefined:
      throw new Error(`history event ${event.eventType ?? '?'} does not close a run`)
  }
}
