/**
 * A Server-Sent Events stream of the API as an async iterator of messages (eventsource-parser over
 * a streaming fetch, Node 20 and browsers alike) that resumes by itself: the one SSE reader of the
 * project, under `follow()`, `watchRuns()` and the inspector's live views. Its resume rules
 * (`Last-Event-ID`, waits, `Retry-After`, giving up) are docs/client.md's "Following a run". The
 * random share added to each wait keeps the clients of a restarted replica (or of sessions that
 * ended together) from all coming back at the same instant.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { errorFromBody, errorFromResponse, FlowportError, FlowportNetworkError } from './errors.js'

export interface StreamContext {
  baseUrl: string
  headers: Record<string, string>
  fetch: typeof fetch
}

/** Where a resuming stream stands, for a caller that shows it (the inspector says "reconnecting…" and why). */
export interface StreamState {
  /**
   * `open`: connected (again). `reconnecting`: the connection failed or ended early, the next
   * attempt comes after a wait. `gave-up`: no live stream for `maxReconnectWaitMs`; the iterator
   * throws `error` next (its message is reworded to say so right after this call).
   */
  state: 'open' | 'reconnecting' | 'gave-up'
  /** Failed attempts since the iterator began. */
  reconnects: number
  /** Why it is reconnecting or gave up: the API's error, or the failed connection. */
  error?: FlowportError
  /** `reconnecting`: how long it waits before the next attempt (ms), jitter included. */
  delayMs?: number
}

export interface ReconnectOptions {
  /** Resume after this event id (the `id` of an event seen before). */
  lastEventId?: string
  /** Aborting it ends the iterator cleanly. */
  signal?: AbortSignal
  /** Longest time spent reconnecting without success before the iterator throws (default 60 000 ms). */
  maxReconnectWaitMs?: number
  /** Called on each connection, each wait before a reconnect, and before giving up. */
  onState?: (state: StreamState) => void
}

const DEFAULT_RETRY_MS = 2000
const MAX_DELAY_MS = 10_000
const DEFAULT_MAX_RECONNECT_WAIT_MS = 60_000
/** Answers that say the API is briefly unable or unwilling to answer (a proxy while a replica restarts, the engine away, a cap of open streams): waited out. */
const PASSING = new Set([429, 502, 503, 504])
/** Each wait is lengthened by a random share up to this, never shortened (a `Retry-After` is a floor). */
const JITTER = 0.5

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

/** An error body: its JSON, or its text when it is not JSON. */
function jsonOrText (text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The error a `server_error` frame stands for (the API's side of the stream failed; it resumes after the last id). */
function frameError (message: EventSourceMessage): FlowportError | undefined {
  return message.event === 'server_error' ? errorFromBody(200, jsonOrText(message.data), 'The stream failed on the API\'s side') : undefined
}

export async function * readEventStream (context: StreamContext, url: string, opts: ReconnectOptions, ends: (message: EventSourceMessage) => boolean): AsyncGenerator<EventSourceMessage, void, undefined> {
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
  let reconnects = 0

  /** Waits before the next attempt, or throws `error` once reconnecting took longer than maxWait. */
  async function backoff (error: FlowportError): Promise<void> {
    failingSince ??= Date.now()
    if (Date.now() - failingSince >= maxWait) {
      opts.onState?.({ state: 'gave-up', reconnects, error })
      error.message = `Gave up reconnecting to ${context.baseUrl} after ${maxWait / 1000} s without a live stream; the last attempt: ${error.message}`
      throw error
    }
    // A proxy or the API that says when to come back (`Retry-After`) is not asked again sooner.
    const floor = Math.max(Math.min(retryMs * 2 ** attempt, Math.max(MAX_DELAY_MS, retryMs)), (error.retryAfter ?? 0) * 1000)
    const delay = Math.round(floor * (1 + JITTER * Math.random()))
    attempt++
    reconnects++
    opts.onState?.({ state: 'reconnecting', reconnects, error, delayMs: delay })
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
        const error = errorFromResponse(response, jsonOrText(await response.text().catch(() => '')))
        if (PASSING.has(response.status)) {
          await backoff(error)
          continue
        }
        throw error
      }
      connectedOnce = true
      failingSince = undefined
      attempt = 0
      opts.onState?.({ state: 'open', reconnects })

      const queue: EventSourceMessage[] = []
      const parser = createParser({
        onEvent (message: EventSourceMessage) { queue.push(message) },
        onRetry (ms: number) { retryMs = ms }
      })
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
      let serverError: FlowportError | undefined
      try {
        for (;;) {
          const chunk = await reader.read()
          if (chunk.done) break
          parser.feed(chunk.value)
          while (queue.length > 0) {
            const message = queue.shift()!
            if (message.id !== undefined) lastEventId = message.id
            yield message
            if (ends(message)) return
            serverError ??= frameError(message)
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
      // The stream ended without its last message (dropped, a failure frame, the API shutting down): resume from lastEventId.
      await backoff(serverError ?? new FlowportNetworkError(`The stream from ${context.baseUrl} ended early`))
    }
  } finally {
    opts.signal?.removeEventListener('abort', abort)
    controller.abort()
  }
}
