/**
 * The inspector (docs/inspector.md) on runs of the example Python worker, served through its
 * catalog file (docs/any-worker.md), in Chromium: a long-running run is followed live (its event
 * count grows as the history stream delivers), and the handler forms of a declared workflow, whose
 * runs carry its Temporal type rather than its name, query the run.
 * Needs Debian's chromium at /usr/bin/chromium (`apt-get install -y chromium`); never downloads one.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { build } from './helpers/app.js'
import { launchChromium } from './helpers/browser.js'
import { startPythonWorker } from './helpers/python-worker.js'
import { eventually } from './helpers/workflows.js'
import type { App } from '../app.js'

const WAIT = 90_000
const catalog = `python-ui-${randomUUID()}`

async function startRun (app: App, workflowName: string, input: unknown): Promise<{ workflowId: string, runId: string }> {
  const res = await app.inject({ method: 'POST', url: '/workflow/start', payload: { catalog, workflowName, input, workflowId: `${workflowName}-${randomUUID()}` } })
  if (res.statusCode !== 200) throw new Error(`start: ${res.statusCode} ${res.body}`)
  return res.json()
}

const eventsShown = async (text: Promise<string | null>) => Number(/(\d+) events/.exec((await text) ?? '')?.[1] ?? 0)

t.test('a Python run followed live in the inspector, and its declared handlers queried from their forms', async (t) => {
  await startPythonWorker(t, catalog)
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  tab.setDefaultTimeout(WAIT)

  const ticker = await startRun(app, 'ticker', { ticks: 1000, intervalMs: 200 })
  t.teardown(async () => { await app.inject({ method: 'POST', url: `/workflow/${ticker.workflowId}/terminate`, payload: {} }) })
  await tab.goto(`${base}/ui/#/run/${encodeURIComponent(ticker.workflowId)}/${encodeURIComponent(ticker.runId)}`)
  const live = tab.locator('.live[data-live="open"]')
  await live.waitFor()
  const before = await eventsShown(live.textContent())
  const grown = await eventually(async () => await eventsShown(live.textContent()), (n) => n > before + 4, 240)
  t.ok(grown > before + 4, 'events arrive live from the Python run')

  const order = await startRun(app, 'order', { item: 'book', quantity: 1 })
  t.teardown(async () => { await app.inject({ method: 'POST', url: `/workflow/${order.workflowId}/terminate`, payload: {} }) })
  await tab.goto(`${base}/ui/#/run/${encodeURIComponent(order.workflowId)}/${encodeURIComponent(order.runId)}`)
  const state = tab.locator('form.handler[data-handler="query-state"]')
  await state.getByRole('button', { name: 'Query' }).click()
  const answer = state.locator('.handler-result')
  await answer.waitFor()
  t.match(await answer.textContent(), /"approved": false/, 'the Python query answered through its form')
  t.equal(await tab.locator('form.handler[data-handler="signal-approve"]').count(), 1, 'the declared signal has its form')
  t.equal(await tab.locator('form.handler[data-handler="update-set_discount"]').count(), 1, 'and the declared update')
})
