// Server-Sent Events over fetch, so the key travels in `Authorization` like every other call
// (an EventSource cannot send headers: it would need the credential in the URL). Reconnects as an
// EventSource would: after the stream's `retry:` delay, sending the last `id:` it received as
// Last-Event-ID, so the API resumes exactly where the dropped connection left off.
import { ApiError, authHeaders, refused } from './api.js'

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms)
  signal.addEventListener('abort', () => { clearTimeout(timer); resolve() }, { once: true })
})

/**
 * Follows `path` until `stop()`, a 204, a refusal, or `onEvent` returning false (e.g. on `done`).
 * onEvent(name, data, id); onState({ state: 'open' | 'reconnecting' | 'ended' | 'failed', reconnects, error }).
 */
export function follow (path, { onEvent, onState = () => {} }) {
  const stopper = new AbortController()
  let lastEventId = null
  let retryMs = 2000
  let reconnects = 0
  let ended = false
  const report = (state, error) => onState({ state, reconnects, error })
  const end = (state, error) => {
    if (ended) return
    ended = true
    stopper.abort()
    report(state, error)
  }

  async function read (body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ''
    let frame = { event: 'message', data: [], id: null }
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buffer += value
      const lines = buffer.split(/\r\n|\r|\n/)
      buffer = lines.pop()
      for (const line of lines) {
        if (line === '') {
          if (frame.id !== null) lastEventId = frame.id
          if (frame.data.length > 0) {
            let data = frame.data.join('\n')
            try { data = JSON.parse(data) } catch { /* not JSON: handed over as text */ }
            if (onEvent(frame.event, data, frame.id) === false) { end('ended'); return }
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
    for (;;) {
      const headers = authHeaders({ accept: 'text/event-stream' })
      if (lastEventId !== null) headers['last-event-id'] = lastEventId
      try {
        const res = await fetch(path, { headers, signal: stopper.signal, cache: 'no-store' })
        if (res.status === 204) return end('ended')
        if (!res.ok) {
          const body = await res.json().catch(() => null)
          return end('failed', refused(new ApiError(res.status, body)))
        }
        report('open')
        await read(res.body)
      } catch { /* a dropped connection: reconnect below */ }
      if (ended) return
      reconnects++
      report('reconnecting')
      await sleep(retryMs, stopper.signal)
    }
  }
  run()
  return { stop: () => end('ended') }
}
