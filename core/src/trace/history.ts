/**
 * Reads a run's whole history, page by page, through a caller-supplied page fetch (the worker's
 * client, or the API's `engine.call` with its deadline and breaker).
 */
import type { temporal } from '@temporalio/proto'
import { activityTypeOf } from '../steps.js'

type HistoryEvent = temporal.api.history.v1.IHistoryEvent
type Response = temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse

export type FetchHistoryPage = (nextPageToken: Uint8Array | undefined) => Promise<Response>

export async function readWholeHistory (fetchPage: FetchHistoryPage): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = []
  let token: Uint8Array | undefined
  do {
    const res = await fetchPage(token)
    events.push(...(res.history?.events ?? []))
    token = res.nextPageToken?.length ? res.nextPageToken : undefined
  } while (token !== undefined)
  return events
}

/** Evaluator activity types (`workflow#evaluator`) of a catalog's workflows. */
export function evaluatorTypes (catalog: { workflows: Array<{ name: string, evaluators: Array<{ name: string }> }> }): Set<string> {
  return new Set(catalog.workflows.flatMap((w) => w.evaluators.map((e) => activityTypeOf(w.name, e.name))))
}

/**
 * Whether workers may have recorded failed attempts of a closed run (worker/src/trace/recorder.ts):
 * false only when every step the history scheduled completed on its first attempt and the run
 * recorded no marker (a local step's retries happen inside one workflow task, out of the
 * history's sight). Records exist of failed attempts alone, and a failed attempt is followed by
 * another (a started event with attempt > 1) or ends the step unfinished, so such a run has none:
 * its trace is assembled without asking the store.
 */
export function mayHaveFailedAttempts (events: HistoryEvent[]): boolean {
  const open = new Set<string>()
  for (const event of events) {
    if (event.markerRecordedEventAttributes) return true
    if (event.activityTaskScheduledEventAttributes) open.add(String(event.eventId))
    const started = event.activityTaskStartedEventAttributes
    if (started && started.attempt !== 1) return true
    const completed = event.activityTaskCompletedEventAttributes
    if (completed) open.delete(String(completed.scheduledEventId))
  }
  return open.size > 0
}
