/**
 * The inspector's run page (docs/inspector.md) acts on and describes the run on screen, not the
 * latest run of its workflow id: a query on an older run answers from that run (the pinned query
 * route), signal and update forms name the run in `If-Match`, and `workersPolling: null` (the API
 * could not ask the engine) reads "unknown".
 * Needs Debian's chromium at /usr/bin/chromium (`apt-get install -y chromium`); never downloads one.
 */
import t, { type Test } from 'tap'
import type { Page, Request } from 'playwright-core'
import { build } from './helpers/app.js'
import { launchChromium } from './helpers/browser.js'
import { uniqueId } from './helpers/history.js'
import type { App } from '../app.js'

const WAIT = 90_000

async function startApproval (app: App, workflowId: string, label: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/workflow/start', payload: { workflowName: 'approval', workflowId, input: { label } } })
  if (res.statusCode !== 200) throw new Error(`start: ${res.statusCode} ${res.body}`)
  return res.json().runId
}

async function openTab (t: Test): Promise<{ tab: Page, posts: Request[] }> {
  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  tab.setDefaultTimeout(WAIT)
  const posts: Request[] = []
  tab.on('request', (request) => { if (request.method() === 'POST') posts.push(request) })
  return { tab, posts }
}

const runHash = (workflowId: string, runId: string) => `#/run/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}`

t.test('handler forms act on the run on screen: a query on an older run answers from it; signals and updates name the run in If-Match', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const workflowId = uniqueId('inspector-pinned')
  const older = await startApproval(app, workflowId, 'the older run')
  const terminated = await app.inject({ method: 'POST', url: `/workflow/${workflowId}/runs/${older}/terminate`, payload: { reason: 'a newer run takes over' } })
  t.equal(terminated.statusCode, 200, terminated.body)
  const latest = await startApproval(app, workflowId, 'the latest run')
  t.teardown(async () => { await app.inject({ method: 'POST', url: `/workflow/${workflowId}/runs/${latest}/terminate`, payload: {} }) })

  const { tab, posts } = await openTab(t)
  await tab.goto(`${base}/ui/${runHash(workflowId, older)}`)
  await tab.locator('.run-head .status[data-status="terminated"]').waitFor()
  const state = tab.locator('form.handler[data-handler="query-state"]')
  await state.getByRole('button', { name: 'Query' }).click()
  const answer = state.locator('.handler-result')
  // An error the API answered shows as the form's problem: waited for too, so a failure says which.
  await state.locator('.handler-result, .problem').first().waitFor()
  t.equal(await state.locator('.problem').count(), 0, await state.locator('.problem').first().textContent({ timeout: 1 }).catch(() => null) ?? 'no problem shown')
  t.match(await answer.textContent(), /the older run/, 'the query answered from the run on screen')
  t.notMatch(await answer.textContent(), /the latest run/, 'not from the latest run of the id')
  t.ok(posts.some((r) => r.url() === `${base}/workflow/${workflowId}/runs/${older}/query/state`), 'through the pinned query route')
  t.ok(await tab.locator('form.handler[data-handler="update-relabel"] button[type="submit"]').isDisabled(), 'a closed run takes no update: its form is disabled')

  await tab.goto(`${base}/ui/${runHash(workflowId, latest)}`)
  const relabel = tab.locator('form.handler[data-handler="update-relabel"]')
  await relabel.locator('input#update-relabel-_label').fill('renamed')
  await relabel.getByRole('button', { name: 'Update' }).click()
  await relabel.locator('.handler-result', { hasText: '"previous": "the latest run"' }).waitFor()
  const approve = tab.locator('form.handler[data-handler="signal-approve"]')
  await approve.locator('input#signal-approve-_by').fill('Ada')
  await approve.getByRole('button', { name: 'Signal' }).click()
  await approve.locator('.handler-result', { hasText: 'sent' }).waitFor()
  const acting = posts.filter((r) => /\/(update|signal)\//.test(r.url()))
  t.same(acting.map((r) => r.headers()['if-match']), [`"${latest}"`, `"${latest}"`], 'the update and the signal named the run on screen in If-Match')
})

t.test('a run whose workersPolling the API could not tell (null) reads "unknown"; yes for a polled catalog', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const workflowId = uniqueId('inspector-polling')
  const runId = await startApproval(app, workflowId, 'polled')
  t.teardown(async () => { await app.inject({ method: 'POST', url: `/workflow/${workflowId}/runs/${runId}/terminate`, payload: {} }) })
  const { tab } = await openTab(t)
  await tab.goto(`${base}/ui/${runHash(workflowId, runId)}`)
  await tab.locator('.facts .workers-polling[data-polling="true"]', { hasText: 'yes' }).waitFor()
  t.pass('a polled catalog reads yes')

  // The fault: the status as the API answers it when the engine's poller check fails (workersPolling: null).
  await tab.route('**/status', async (route) => {
    const real = await route.fetch()
    await route.fulfill({ response: real, json: { ...await real.json(), workersPolling: null } })
  })
  await tab.reload()
  await tab.locator('.facts .workers-polling[data-polling="null"]', { hasText: 'unknown' }).waitFor()
  t.pass('null reads unknown')
})
