/**
 * A real browser follows a run with its own EventSource, from another origin, with a run token in
 * the query (test/browser-run-token.test.ts covers the token itself). The API drops the connection mid-run; the browser reconnects by itself with
 * Last-Event-ID (through a CORS preflight) and must end up with every event exactly once.
 * Needs Debian's chromium at /usr/bin/chromium (`apt-get install -y chromium`); never downloads one.
 */
import t from 'tap'
import { build } from './helpers/app.js'
import { launchChromium, servePage, trackSockets } from './helpers/browser.js'
import { engineClient, startExample } from './helpers/history.js'

const TOKEN = 'browser-secret'

/** The page: follows the stream and records what the browser's EventSource delivers. */
const page = (streamUrl: string) => `<!doctype html>
<meta charset="utf-8"><title>flowport stream</title>
<script>
  window.received = []
  window.errors = 0
  window.state = 'open'
  const source = new EventSource(${JSON.stringify(streamUrl)})
  for (const name of ['workflow', 'history', 'done', 'server_error']) {
    source.addEventListener(name, (e) => {
      window.received.push({ event: name, data: JSON.parse(e.data), id: e.lastEventId })
      if (name === 'done' || name === 'server_error') { source.close(); window.state = name }
    })
  }
  source.onerror = () => { window.errors++ }
</script>`

interface Received { event: string, data: any, id: string }

t.test('a browser EventSource on another origin gets every event exactly once across a dropped connection', async (t) => {
  const client = await engineClient(t)
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN })
  const resumedWith: string[] = []
  app.addHook('onRequest', async (request) => {
    const id = request.headers['last-event-id']
    if (request.method === 'GET' && typeof id === 'string') resumedWith.push(id)
  })
  const sockets = trackSockets(app)
  const api = await app.listen({ port: 0, host: '127.0.0.1' })

  let streamUrl = ''
  const siteUrl = await servePage(t, () => page(streamUrl))
  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  // The run starts once the browser is up: a slow browser start must not miss the live part of it.
  const handle = await startExample(client, 'sleepy', { steps: 8, delayMs: 400 })
  const issued = await app.inject({ method: 'POST', url: '/tokens', headers: { authorization: `Bearer ${TOKEN}` }, payload: { workflowId: handle.workflowId, scopes: ['read'], ttl: 600 } })
  streamUrl = `${api}/workflow/${handle.workflowId}/history/stream?access_token=${issued.json().token}`
  await tab.goto(siteUrl)

  await tab.waitForFunction(() => (globalThis as any).received.some((r: Received) => r.event === 'history'))
  // The API side drops the stream mid-run.
  const dropped = sockets.size
  for (const socket of sockets) socket.destroy()
  t.ok(dropped >= 1, 'the stream connection was cut')

  await tab.waitForFunction(() => (globalThis as any).state !== 'open', undefined, { timeout: 120_000 })
  const received: Received[] = await tab.evaluate(() => (globalThis as any).received)
  const errors: number = await tab.evaluate(() => (globalThis as any).errors)

  const events = received.map((r) => r.event)
  t.equal(events.filter((e) => e === 'workflow').length, 2, 'workflow on the first connect and on the reconnect')
  t.equal(events.at(-1), 'done')
  t.same(received.at(-1)!.data, { reason: 'WORKFLOW_EXECUTION_COMPLETED' })
  t.ok(errors >= 1, 'the browser noticed the drop')
  t.equal(resumedWith.length, 1, 'the browser resumed once, by itself, with Last-Event-ID')
  const ids = received.filter((r) => r.event === 'history').flatMap((r) => r.data.map((e: { eventId: string }) => Number(e.eventId)))
  t.same(ids, Array.from({ length: ids.length }, (_, i) => i + 1), 'every event exactly once, in order')
  const rest = await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/history?pageSize=1000`, headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(ids.length, rest.json().events.length, 'the whole history')
  const lastBeforeDrop = received.slice(0, events.lastIndexOf('workflow')).filter((r) => r.id).at(-1)!.id
  t.equal(resumedWith[0], lastBeforeDrop, 'resumed from the last id it had')
})
