/**
 * `follow()`: the history stream (`GET /workflow/{id}[/runs/{rid}]/history/stream`) as an async
 * iterator, parsed with eventsource-parser over a streaming fetch (Node 20 and browsers alike).
 *
 * Resuming: the client remembers the `id:` of the last `history`/`done` event it yielded and, when
 * the connection drops, the API sends a `server_error`, or the API is down for a while (connection
 * refused during a restart), it reconnects with that id in the `Last-Event-ID` header. The API
 * then sends exactly the events after it, so every history event reaches the caller once. The
 * wait between attempts is the server's `retry:` hint (first attempt), then doubles up to 10 s;
 * after `maxReconnectWaitMs` (default 60 s) without a successful reconnect the iterator throws
 * the last error (FlowportNetworkError, or the API's error). The first connection is not
 * retried: an API that does not answer it throws FlowportNetworkError at once.
 *
 * `workflow` is sent by the API on every connect, so it is yielded again after each reconnect
 * (it is a snapshot of the run, not history). The iterator ends after `done`, on a 204, or
 * cleanly (without throwing) when `signal` aborts. A JSON error before the first stream byte
 * (400, 401, 404, …) throws its error class; during a reconnect, 502/503/504 answers are retried.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { errorFromResponse, FlowportError, FlowportNetworkError } from './errors.js'
import type { StreamEvent } from './types.js'

export interface FollowOptions {
  /** Follow this run (the pinned route) instead of the current run of the workflow id. */
  runId?: string
  /** Resume after this event id (the `id` of a `history` or `done` event seen before). */
  lastEventId?: string
  /** Decode payloads to their JSON values. */
  includePayloads?: boolean
  /** Aborting it ends the iterator cleanly. */
  signal?: AbortSignal
  /** Longest time spent reconnecting without success before the iterator throws (default 60 000 ms). */
  maxReconnectWaitMs?: number
}

export interface FollowContext {
  baseUrl: string
  headers: Record<string, string>
  fetch: typeof fetch
}

const DEFAULT_RETRY_MS = 2000
const MAX_DELAY_MS = 10_000
const DEFAULT_MAX_RECONNECT_WAIT_MS = 60_000

function sleep (ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve()
    const timer = setTimeout(done, ms)
    function done (): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}

async function readBody (response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '')
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export async function * follow (context: FollowContext, workflowId: string, opts: FollowOptions = {}): AsyncGenerator<StreamEvent, void, undefined> {
  const path = opts.runId === undefined
    ? `/workflow/${encodeURIComponent(workflowId)}/history/stream`
    : `/workflow/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(opts.runId)}/history/stream`
  const url = context.baseUrl + path + (opts.includePayloads === true ? '?includePayloads=true' : '')
  const maxWait = opts.maxReconnectWaitMs ?? DEFAULT_MAX_RECONNECT_WAIT_MS

  // One controller for this iterator: the caller's signal aborts it, and so does leaving the loop early.
  const controller = new AbortController()
  const abort = (): void => controller.abort()
  if (opts.signal?.aborted === true) return
  opts.signal?.addEventListener('abort', abort, { once: true })

  let lastEventId = opts.lastEventId
  let retryMs = DEFAULT_RETRY_MS
  let connectedOnce = false
  /** When the current run of failed attempts began (undefined while connected). */
  let failingSince: number | undefined
  let attempt = 0

  /** Waits before the next attempt, or throws `error` once reconnecting took longer than maxWait. */
  async function backoff (error: FlowportError): Promise<void> {
    failingSince ??= Date.now()
    if (Date.now() - failingSince >= maxWait) throw error
    const delay = Math.min(retryMs * 2 ** attempt, Math.max(MAX_DELAY_MS, retryMs))
    attempt++
    await sleep(delay, controller.signal)
  }

  try {
    while (!controller.signal.aborted) {
      const headers: Record<string, string> = { ...context.headers, accept: 'text/event-stream' }
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId
      let response: Response
      try {
        response = await context.fetch(url, { headers, signal: controller.signal })
      } catch (error) {
        if (controller.signal.aborted) return
        const failure = new FlowportNetworkError(`No answer from ${context.baseUrl}: ${error instanceof Error ? error.message : String(error)}`, error)
        if (!connectedOnce) throw failure
        await backoff(failure)
        continue
      }
      if (response.status === 204) return
      if (!response.ok || response.body === null) {
        const error = errorFromResponse(response, await readBody(response))
        if (connectedOnce && [502, 503, 504].includes(response.status)) {
          await backoff(error)
          continue
        }
        throw error
      }
      connectedOnce = true
      failingSince = undefined
      attempt = 0

      const queue: StreamEvent[] = []
      const parser = createParser({
        onEvent (message: EventSourceMessage) {
          const event = toStreamEvent(message)
          if (event !== undefined) queue.push(event)
        },
        onRetry (ms: number) {
          retryMs = ms
        }
      })
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
      let serverError: FlowportError | undefined
      try {
        for (;;) {
          const chunk = await reader.read()
          if (chunk.done) break
          parser.feed(chunk.value)
          while (queue.length > 0) {
            const event = queue.shift()!
            if (event.event === 'history' || event.event === 'done') lastEventId = event.id
            yield event
            if (event.event === 'done') return
            if (event.event === 'server_error') {
              serverError = new FlowportError(event.data.message, { status: 200, error: event.data.error, body: event.data, workflowId: event.data.workflowId, runId: event.data.runId })
            }
          }
          if (serverError !== undefined) break
        }
      } catch (error) {
        if (controller.signal.aborted) return
        serverError = new FlowportNetworkError(`The stream from ${context.baseUrl} broke: ${error instanceof Error ? error.message : String(error)}`, error)
      } finally {
        reader.cancel().catch(() => {})
      }
      if (controller.signal.aborted) return
      // The stream ended without `done` (dropped, server_error, API shutting down): resume from lastEventId.
      await backoff(serverError ?? new FlowportNetworkError(`The stream from ${context.baseUrl} ended before done`))
    }
  } finally {
    opts.signal?.removeEventListener('abort', abort)
    controller.abort()
  }
}

function toStreamEvent (message: EventSourceMessage): StreamEvent | undefined {
  const data: unknown = JSON.parse(message.data)
  switch (message.event) {
    case 'workflow': return { event: 'workflow', data: data as Extract<StreamEvent, { event: 'workflow' }>['data'] }
    case 'history': return { event: 'history', id: message.id ?? '', data: data as Extract<StreamEvent, { event: 'history' }>['data'] }
    case 'done': return { event: 'done', id: message.id ?? '', data: data as Extract<StreamEvent, { event: 'done' }>['data'] }
    case 'server_error': return { event: 'server_error', data: data as Extract<StreamEvent, { event: 'server_error' }>['data'] }
    default: return undefined
  }
}
