/**
 * The client in a real browser: Debian's Chromium loads a page from another origin with the
 * client bundled by esbuild, and follows a live run with `follow()` (fetch streaming, the token
 * in the Authorization header, Last-Event-ID on reconnect, both through CORS preflights). The
 * API drops the connection mid-run; the page must still see every event exactly once.
 * Needs /usr/bin/chromium (`apt-get install -y chromium`), like test/browser-stream.test.ts.
 */
import t from 'tap'
import { fileURLToPath } from 'node:url'
import { build as bundle } from 'esbuild'
import { build } from '../../test/helpers/app.js'
import { launchChromium, servePage, trackSockets } from '../../test/helpers/browser.js'
import { FlowportClient, type StreamEvent } from '@flowport/client'

const TOKEN = 'browser-client-secret'

async function clientBundle (): Promise<string> {
  const result = await bundle({
    entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'Flowport',
    platform: 'browser',
    conditions: ['flowport-source'],
    target: 'chrome120'
  })
  return result.outputFiles[0]!.text
}

const page = (code: string, api: string, workflowId: string) => `<!doctype html>
<meta charset="utf-8"><title>flowport client</title>
<script>${code.replaceAll('</script', '<\\/script')}</script>
<script>
  window.received = []
  window.state = 'open'
  const client = new Flowport.FlowportClient({ baseUrl: ${JSON.stringify(api)}, token: ${JSON.stringify(TOKEN)} })
  ;(async () => {
    try {
      for await (const event of client.follow(${JSON.stringify(workflowId)})) window.received.push(event)
      window.state = 'ended'
    } catch (error) {
      window.state = 'error: ' + error.name + ': ' + error.message
    }
  })()
</script>`

t.test('follow() in Chromium on another origin gets every event exactly once across a dropped connection', async (t) => {
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN })
  const resumedWith: string[] = []
  const authorized: boolean[] = []
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'GET' || !request.url.includes('/history/stream')) return
    authorized.push(request.headers.authorization === `Bearer ${TOKEN}`)
    const id = request.headers['last-event-id']
    if (typeof id === 'string') resumedWith.push(id)
  })
  const sockets = trackSockets(app)
  const api = await app.listen({ port: 0, host: '127.0.0.1' })
  const client = new FlowportClient({ baseUrl: api, token: TOKEN })
  const code = await clientBundle()

  let html = ''
  const siteUrl = await servePage(t, () => html)
  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  // The run starts once the browser is up: a slow browser start must not miss the live part of it.
  const { workflowId } = await client.start('sleepy', { steps: 8, delayMs: 400 }, { catalog: process.env.FLOWPORT_TEST_CATALOG })
  html = page(code, api, workflowId)
  await tab.goto(siteUrl)

  await tab.waitForFunction(() => (globalThis as any).received.some((r: StreamEvent) => r.event === 'history'))
  const dropped = sockets.size
  for (const socket of sockets) socket.destroy()
  t.ok(dropped >= 1, 'the stream connection was cut')

  await tab.waitForFunction(() => (globalThis as any).state !== 'open', undefined, { timeout: 120_000 })
  t.equal(await tab.evaluate(() => (globalThis as any).state), 'ended', 'the iterator ended without an error')
  const received: StreamEvent[] = await tab.evaluate(() => (globalThis as any).received)

  t.ok(received.filter((r) => r.event === 'workflow').length >= 2, 'workflow on the first connect and on the reconnect')
  t.match(received.at(-1), { event: 'done', data: { reason: 'WORKFLOW_EXECUTION_COMPLETED' } })
  t.ok(resumedWith.length >= 1, 'the page resumed by itself with Last-Event-ID')
  t.ok(authorized.every(Boolean), 'every stream request carried the token in the Authorization header')
  const ids = received.flatMap((r) => r.event === 'history' ? r.data.map((e) => Number(e.eventId)) : [])
  const rest = await app.inject({ method: 'GET', url: `/workflow/${workflowId}/history?pageSize=1000`, headers: { authorization: `Bearer ${TOKEN}` } })
  t.same(ids, rest.json().events.map((e: { eventId: string }) => Number(e.eventId)), 'every event exactly once, in order')
})
