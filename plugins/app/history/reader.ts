/**
 * What the history code asks of the engine: one page of a run's events (plugins/app/history/history.ts
 * implements it with the Temporal client, through `engine.call`).
 */
import type { RawEvent } from './events.js'

export interface ReadRequest {
  workflowId: string
  runId: string
  pageToken?: Uint8Array
  /** Long-poll: the engine answers when there are new events (or its poll interval expires). */
  wait: boolean
  pageSize?: number
  signal?: AbortSignal
}

/** One page as the engine answers it (not the API's HistoryPage: raw events, the engine's token). */
export interface EnginePage {
  events: RawEvent[]
  /** Undefined once a closed run's history is exhausted (or, without `wait`, at the current end). */
  nextPageToken?: Uint8Array
}

export type HistoryReader = (request: ReadRequest) => Promise<EnginePage>

/** The engine's next page token, or undefined at the end. */
export const nextEngineToken = (page: EnginePage): Uint8Array | undefined =>
  (page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined)
