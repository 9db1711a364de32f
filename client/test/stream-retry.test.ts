/**
 * How the client's streams come back (issue 49 item 3), against the real API: a stream refused
 * with 429 at the key's cap of open streams waits out `Retry-After` and keeps trying instead of
 * throwing; reconnect waits carry jitter, so clients whose sessions ended together do not all
 * come back at the same instant. The inspector and the CLI read streams through this client.
 */
import t from 'tap'
import { build } from '../../test/helpers/app.js'
import { bearer, keysFile } from '../../test/helpers/keys.js'
import { openSse } from '../../test/helpers/history.js'
import { FlowportClient, RateLimitedError, type RunsFeedEvent, type StreamState } from '@flowport/client'

t.test('a stream refused with 429 waits out Retry-After and gets in once the key has room', async (t) => {
  const { keys, file } = keysFile(t, [{ id: 'viewer', scopes: ['read'] }])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file, SERVICE_STREAMS_MAX_PER_KEY: '1' })
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  const filter = `none-${Date.now()}`
  // The key's one stream.
  const holder = await openSse(`${baseUrl}/workflow/runs/stream?workflowName=${filter}`, bearer(keys.viewer!))
  t.equal(holder.statusCode, 200)

  const client = new FlowportClient({ baseUrl, token: keys.viewer! })
  const controller = new AbortController()
  const states: StreamState[] = []
  const events: RunsFeedEvent[] = []
  const onState = (state: StreamState) => {
    states.push(state)
    // Room for the waiting stream once it was refused.
    if (state.state === 'reconnecting') holder.close()
  }
  for await (const event of client.watchRuns({ workflowName: filter, signal: controller.signal, onState })) {
    events.push(event)
    if (event.event === 'feed') controller.abort()
  }
  t.equal(events[0]?.event, 'feed', 'the stream got in after the refusal')
  const refused = states.find((s) => s.state === 'reconnecting')
  t.ok(refused?.error instanceof RateLimitedError, 'it was refused with the key\'s 429')
  t.equal(refused?.error?.retryAfter, 10, 'which said when to come back')
  t.ok((refused?.delayMs ?? 0) >= 10_000, `and it waited no less than Retry-After (${refused?.delayMs} ms)`)
  t.equal(states.at(-1)?.state, 'open')
})

t.test('reconnect waits are jittered: sessions that end together do not come back together', async (t) => {
  const app = await build(t, { SERVICE_SSE_HEARTBEAT_MS: '100', SERVICE_RUNS_FEED_SESSION_MS: '300' })
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  const client = new FlowportClient({ baseUrl })
  const filter = `none-${Date.now()}`
  const waits = await Promise.all(Array.from({ length: 10 }, async () => {
    const controller = new AbortController()
    let wait: number | undefined
    const onState = (state: StreamState) => {
      if (state.state !== 'reconnecting') return
      wait = state.delayMs
      controller.abort()
    }
    for await (const event of client.watchRuns({ workflowName: filter, signal: controller.signal, onState })) void event // until the session ends
    return wait
  }))
  // The feed hints `retry: 2000`; each client waits that plus a random 0–50 %.
  t.ok(waits.every((w) => w !== undefined && w >= 2000 && w <= 3000), `every wait within 2–3 s: ${waits.join(', ')}`)
  t.ok(new Set(waits).size > 1, 'and they differ')
})
