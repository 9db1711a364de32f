/**
 * The run inspector's live view (ui/live.js over client/src/event-stream.ts, docs/inspector.md)
 * rides out what a browser meets while a replica restarts or the engine blips: the API closed and
 * started again on the same port behind a proxy (which answers 502 meanwhile, as nginx in deploy/
 * does), a 503 with `Retry-After`, and a
 * `server_error` frame when the engine fails one history read. The page says it is reconnecting,
 * says so no more once live again, resumes with Last-Event-ID and ends with every event once; when
 * the API never comes back it gives up after a minute and says so.
 * Needs Debian's chromium at /usr/bin/chromium (`apt-get install -y chromium`); never downloads one.
 */
import t from 'tap'
import { build } from './helpers/app.js'
import { launchChromium } from './helpers/browser.js'
import { gateway } from './helpers/gateway.js'
import { uniqueId } from './helpers/history.js'
import type { App } from '../app.js'

const WAIT = 120_000

/** The next long-poll of a history fails once as an unreachable engine's would (gRPC UNAVAILABLE): the stream ends with `server_error`. */
function failNextHistoryWait (app: App): { failures: () => number } {
  const service = app.engine.client.workflowService
  const real = service.getWorkflowExecutionHistory.bind(service)
  let failures = 0
  service.getWorkflowExecutionHistory = (async (request: Parameters<typeof real>[0]) => {
    if (failures === 0 && request.waitNewEvent === true) {
      failures++
      throw Object.assign(new Error('injected: the engine is unreachable'), { code: 14, details: 'injected', metadata: {} })
    }
    return await real(request)
  }) as typeof service.getWorkflowExecutionHistory
  return { failures: () => failures }
}

t.test('the run page rides out an API restart (502 from the proxy), a 503 with Retry-After and a server_error frame, every event once', async (t) => {
  const first = await build(t)
  const port = Number(new URL(await first.listen({ port: 0, host: '127.0.0.1' })).port)
  const proxy = await gateway(t, port)
  const steps = 20
  const started = await first.inject({ method: 'POST', url: '/workflow/start', payload: { workflowName: 'sleepy', workflowId: uniqueId('inspector-blip'), input: { steps, delayMs: 2000 } } })
  t.equal(started.statusCode, 200, started.body)
  const { workflowId, runId } = started.json()

  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  tab.setDefaultTimeout(WAIT)
  await tab.goto(`${proxy.url}/ui/#/run/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}`)
  const live = tab.locator('.steps .live')
  await tab.locator('.step[data-step="tick"]').first().waitFor()
  await tab.locator('.steps .live[data-live="open"]').waitFor()

  // A replica restarts: the proxy answers 502 while nothing listens on the port.
  await first.close()
  await tab.locator('.steps .live[data-live="reconnecting"]', { hasText: 'HTTP 502' }).waitFor()
  t.pass('the page says it is reconnecting, and why (the proxy\'s 502)')
  // The engine is away: 503 with Retry-After.
  proxy.unavailable(1)
  await tab.locator('.steps .live[data-live="reconnecting"]', { hasText: 'the workflow engine is unavailable' }).waitFor()
  t.pass('a 503 is waited out too')
  proxy.unavailable(null)
  const second = await build(t)
  await second.listen({ port, host: '127.0.0.1' })
  await tab.locator('.steps .live[data-live="open"]').waitFor()
  t.notMatch(await live.textContent(), /reconnecting/, 'live again: "reconnecting" is gone')
  const before = await tab.locator('.step[data-step="tick"]').count()
  t.ok(before < steps, `resumed mid-run: ${before} of ${steps} ticks shown`)

  // The engine fails one history read: the API ends the stream with a server_error frame.
  const fault = failNextHistoryWait(second)
  await tab.locator('.steps .live[data-live="reconnecting"]', { hasText: 'the workflow engine is unavailable' }).waitFor()
  t.equal(fault.failures(), 1, 'one history read failed')

  await tab.locator('.steps .live[data-live="ended"]').waitFor()
  t.same(await tab.locator('.step[data-step="tick"] .status').evaluateAll((els) => els.map((e) => e.getAttribute('data-status'))),
    Array(steps).fill('completed'), 'every tick exactly once, all completed')
  const history = await second.inject({ method: 'GET', url: `/workflow/${workflowId}/runs/${runId}/history?pageSize=1000` })
  const shown = /· (\d+) events/.exec((await live.textContent()) ?? '')
  t.equal(Number(shown?.[1]), history.json().events.length, 'as many events as the run\'s history: none lost or repeated')
  t.equal(await tab.locator('.steps .problem').count(), 0, 'no error left on the page')

  const streams = proxy.answers.filter((a) => a.path.endsWith('/history/stream'))
  t.same(streams.filter((a) => ![200, 502, 503].includes(a.status)), [], 'streams, 502s and 503s, nothing else')
  t.ok(streams.some((a) => a.status === 502) && streams.some((a) => a.status === 503), 'the page met both')
  t.equal(streams[0].lastEventId, undefined, 'the first connection starts from the beginning')
  t.ok(streams.slice(1).every((a) => a.lastEventId !== undefined), 'every reconnect resumes with Last-Event-ID')
  t.ok(streams.filter((a) => a.status === 200).length >= 3, 'connected three times: at first, after the restart, after the server_error')
})

t.test('the run page gives up after a minute without a live connection, and says so', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const started = await app.inject({ method: 'POST', url: '/workflow/start', payload: { workflowName: 'sleepy', workflowId: uniqueId('inspector-gone'), input: { steps: 6, delayMs: 2000 } } })
  t.equal(started.statusCode, 200, started.body)
  const { workflowId, runId } = started.json()
  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  tab.setDefaultTimeout(WAIT)
  await tab.goto(`${base}/ui/#/run/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}`)
  await tab.locator('.steps .live[data-live="open"]').waitFor()

  await app.close()
  await tab.locator('.steps .live[data-live="reconnecting"]').waitFor()
  await tab.locator('.steps .live[data-live="failed"]').waitFor()
  t.match(await tab.locator('.steps .problem').textContent(), /Gave up following live.*No live connection for 60 s.*reload the page/s, 'the page says it gave up, and what to do, in words')
  t.equal(await tab.locator('.steps .problem').getAttribute('data-error'), 'StreamGaveUp', 'the error\'s name is kept for tools, not shown')
})
