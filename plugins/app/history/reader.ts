import type { RawEvent } from './events.js'

export interface ReadRequest {
  workflowId: string
  runId: string
  pageToken?: Uint8Array
  /** The engine answers when there are new events or its poll interval ends. */
  wait: boolean
  pageSize?: number
  signal?: AbortSignal
}

/** Raw events and the engine's token, not the API's HistoryPage. */
export interface EnginePage {
  events: RawEvent[]
  /** Undefined once a closed run's history is exhausted (or, without `wait`, at the current end). */
  nextPageToken?: Uint8Array
}

export type HistoryReader = (request: ReadRequest) => Promise<EnginePage>

export const nextEngineToken = (page: EnginePage): Uint8Array | undefined =>
  (page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined)
