// Server-Sent Events over fetch, so the key travels in `Authorization` like every other call
// (an EventSource cannot send headers: it would need the credential in the URL). Reconnects as an
// EventSource would, sending the last `id:` it received as Last-Event-ID, so the API resumes
// exactly where the dropped connection left off; unlike an EventSource it also rides out an API
// that answers 502/503/504 for a while (a proxy while a replica restarts, an engine blip) or ends
// the stream with a `server_error` frame (docs/inspector.md, "Live steps").
import { ApiError, authHeaders, refused } from './api.js'

/** Answers worth waiting out: the proxy or the API says it is briefly unable to answer. */
const PASSING = new Set([502, 503, 504])
const MAX_DELAY_MS = 10_000
/** How long the page keeps trying without a successful connection before it gives up. */
const GIVE_UP_MS = 60_000

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms)
  signal.addEventListener('abort', () => { clearTimeout(timer); resolve() }, { once: true })
})

/** `Retry-After` in milliseconds (seconds or an HTTP date); null when absent or unreadable. */
function retryAfterMs (res) {
  const value = res.headers.get('retry-after')
  if (value === null) return null
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now())
}

/** A failure the page waits out: an ApiError-like value for Problem. */
const passing = (name, message) => ({ name, message })

/**
 * Follows `path` until `stop()`, a 204, a refusal, or `onEvent` returning false (e.g. on `done`).
 * onEvent(name, data, id); onState({ state: 'open' | 'reconnecting' | 'ended' | 'failed', reconnects, error }).
 * While reconnecting, `error` is why (null for a plain drop); `failed` after GIVE_UP_MS without a connection.
 */
export function follow (path, { onEvent, onState = () => {} }) {
  const stopper = new AbortController()
  let lastEventId = null
  let retryMs = 2000
  let reconnects = 0
  let ended = false
  const report = (state, error = null) => onState({ state, reconnects, error })
  const end = (state, error) => {
    if (ended) return
    ended = true
    stopper.abort()
    report(state, error)
  }

  /** Reads frames until the body ends; the API's `server_error` frame, if one came, as the error. */
  async function read (body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ''
    let frame = { event: 'message', data: [], id: null }
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return null
      buffer += value
      const lines = buffer.split(/\r\n|\r|\n/)
      buffer = lines.pop()
      for (const line of lines) {
        if (line === '') {
          if (frame.id !== null) lastEventId = frame.id
          if (frame.data.length > 0) {
            let data = frame.data.join('\n')
            try { data = JSON.parse(data) } catch { /* not JSON: handed over as text */ }
            // The stream failed on the API's side (the engine did not answer); it resumes after the last id.
            if (frame.event === 'server_error') {
              reader.cancel().catch(() => {})
              return new ApiError(200, data)
            }
            if (onEvent(frame.event, data, frame.id) === false) { end('ended'); return null }
          }
          frame = { event: 'message', data: [], id: null }
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon === -1 ? line : line.slice(0, colon)
        const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'event') frame.event = text
        else if (field === 'data') frame.data.push(text)
        else if (field === 'id') frame.id = text
        else if (field === 'retry' && /^\d+$/.test(text)) retryMs = Number(text)
      }
    }
  }

  async function run () {
    /** When the current series of failed attempts began; null while connected. */
    let failingSince = null
    let attempt = 0
    for (;;) {
      const headers = authHeaders({ accept: 'text/event-stream' })
      if (lastEventId !== null) headers['last-event-id'] = lastEventId
      let error = null
      let waitMs = null
      try {
        const res = await fetch(path, { headers, signal: stopper.signal, cache: 'no-store' })
        if (res.status === 204) return end('ended')
        if (!res.ok) {
          const body = await res.json().catch(() => null)
          if (!PASSING.has(res.status)) return end('failed', refused(new ApiError(res.status, body)))
          error = new ApiError(res.status, body)
          waitMs = retryAfterMs(res)
        } else {
          failingSince = null
          attempt = 0
          report('open')
          error = await read(res.body)
        }
      } catch {
        error = passing('NetworkError', 'The connection to the API failed')
      }
      if (ended) return
      failingSince ??= Date.now()
      if (Date.now() - failingSince >= GIVE_UP_MS) {
        return end('failed', passing('StreamGaveUp', `No live connection for ${GIVE_UP_MS / 1000} s (last: ${error?.message ?? 'the stream ended'}); reload the page to try again`))
      }
      // The stream's `retry:` hint, doubled per failed attempt; never sooner than the answer's Retry-After.
      const delay = Math.max(Math.min(retryMs * 2 ** attempt, Math.max(MAX_DELAY_MS, retryMs)), waitMs ?? 0)
      attempt++
      reconnects++
      report('reconnecting', error)
      await sleep(delay, stopper.signal)
    }
  }
  run()
  return { stop: () => end('ended') }
}
