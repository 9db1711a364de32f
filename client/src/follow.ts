/**
 * `follow()`: the history stream (`GET /workflow/{id}[/runs/{rid}]/history/stream`) as an async
 * iterator that resumes by itself (event-stream.ts): the client reconnects after the `id:` of the
 * last `history`/`done` event it yielded, so every history event reaches the caller once.
 *
 * `workflow` is sent by the API on every connect, so it is yielded again after each reconnect
 * (it is a snapshot of the run, not history). The iterator ends after `done`, on a 204, or
 * cleanly (without throwing) when `signal` aborts. A JSON error before the first stream byte
 * (400, 401, 404, …) throws its error class; 502/503/504 answers are waited out.
 */
import { readEventStream, type ReconnectOptions, type StreamContext } from './event-stream.js'
import type { StreamEvent } from './types.js'

export interface FollowOptions extends ReconnectOptions {
  /** Follow this run (the pinned route) instead of the current run of the workflow id. */
  runId?: string
  /** Decode payloads to their JSON values. */
  includePayloads?: boolean
}

const NAMES = new Set(['workflow', 'history', 'done', 'server_error'])

export async function * follow (context: StreamContext, workflowId: string, opts: FollowOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
  const path = opts.runId === undefined
    ? `/workflow/${encodeURIComponent(workflowId)}/history/stream`
    : `/workflow/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(opts.runId)}/history/stream`
  const url = context.baseUrl + path + (opts.includePayloads === true ? '?includePayloads=true' : '')
  const messages = readEventStream(context, url, opts, (message) => message.event === 'done')
  for await (const { event, id, data } of messages) {
    if (event === undefined || !NAMES.has(event)) continue
    // `workflow` and `server_error` carry no id: they are not history the client resumes after.
    const resume = event === 'history' || event === 'done' ? { id: id ?? '' } : {}
    yield { event, ...resume, data: JSON.parse(data) } as StreamEvent
  }
}
