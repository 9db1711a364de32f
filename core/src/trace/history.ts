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
