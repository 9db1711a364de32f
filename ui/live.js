// A live view's stream: one of the client's resuming SSE iterators (client.follow, client.watchRuns;
// the reconnect rules are @flowport/client's, client/src/event-stream.ts), with where it stands in
// the words the views show (docs/inspector.md, "Live steps").
const GIVE_UP_S = 60

/**
 * Reads `open({ signal, onState })` until it ends, fails or `stop()`: onEvent(event) for each
 * event; onState({ state: 'open' | 'reconnecting' | 'ended' | 'failed', reconnects, error }).
 * While reconnecting, `error` is why; `failed` carries the refusal, or that it gave up.
 */
export function live (open, { onEvent, onState }) {
  const stopper = new AbortController()
  let reconnects = 0
  let gaveUp = null
  const report = (state, error = null) => { if (!stopper.signal.aborted) onState({ state, reconnects, error }) }
  const changed = (change) => {
    reconnects = change.reconnects
    if (change.state === 'gave-up') {
      gaveUp = { name: 'StreamGaveUp', message: `No live connection for ${GIVE_UP_S} s (last: ${change.error.message}); reload the page to try again` }
    } else {
      report(change.state, change.error)
    }
  }
  ;(async () => {
    try {
      for await (const event of open({ signal: stopper.signal, onState: changed, maxReconnectWaitMs: GIVE_UP_S * 1000 })) onEvent(event)
      report('ended')
    } catch (error) {
      report('failed', gaveUp ?? error)
    }
  })()
  return { stop: () => stopper.abort() }
}
