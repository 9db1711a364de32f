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

export async function * follow (context: StreamContext, workflowId: string, opts: FollowOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
  const path = opts.runId === undefined
    ? `/workflow/${encodeURIComponent(workflowId)}/history/stream`
    : `/workflow/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(opts.runId)}/history/stream`
  const url = context.baseUrl + path + (opts.includePayloads === true ? '?includePayloads=true' : '')
  const messages = readEventStream(context, url, opts, { ends: (message) => message.event === 'done' })
  for await (const message of messages) {
    const event = toStreamEvent(message.event, message.id, message.data)
    if (event !== undefined) yield event
  }
}

function toStreamEvent (name: string | undefined, id: string | undefined, text: string): StreamEvent | undefined {
  const data: unknown = JSON.parse(text)
  switch (name) {
    case 'workflow': return { event: 'workflow', data: data as Extract<StreamEvent, { event: 'workflow' }>['data'] }
    case 'history': return { event: 'history', id: id ?? '', data: data as Extract<StreamEvent, { event: 'history' }>['data'] }
    case 'done': return { event: 'done', id: id ?? '', data: data as Extract<StreamEvent, { event: 'done' }>['data'] }
    case 'server_error': return { event: 'server_error', data: data as Extract<StreamEvent, { event: 'server_error' }>['data'] }
    default: return undefined
  }
}
