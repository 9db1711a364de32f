/**
 * The run inspector (/ui, docs/inspector.md) in Debian's Chromium against the real API, engine and
 * worker: a run started from the form generated from its schema shows its output; a `sleepy` run is followed live
 * across a dropped connection; a `flaky` run's timeline shows each attempt; an `approval` run is
 * updated through its form and stopped with its cleanup visible; markup in a workflow's output stays
 * text and the CSP blocks inline script; a wrong key is refused with the API's message. Auth off and
 * on. Takes a screenshot of the flaky run's page into a temporary directory; with
 * FLOWPORT_UPDATE_SCREENSHOT=1 (`npm run screenshot`) into docs/inspector.png, the one the README
 * shows, so that a test run leaves no tracked file changed.
 * Needs Debian's chromium at /usr/bin/chromium (`apt-get install -y chromium`); never downloads one.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import { catalogWorkflowId, type CatalogWorkflow } from '@flowport/core/contract'
import { build } from './helpers/app.js'
import { launchChromium, trackSockets } from './helpers/browser.js'
import { uniqueId } from './helpers/history.js'
import { publishCatalog } from './helpers/poller.js'
import { eventually } from './helpers/workflows.js'
import type { App } from '../app.js'

const KEY = 'inspector-test-key-0123456789'
const VIEWPORT = { width: 1280, height: 900 }
/** The README's screenshot, rewritten only on request (`npm run screenshot`). */
const DOCS_SCREENSHOT = fileURLToPath(new URL('../docs/inspector.png', import.meta.url))

function screenshotPath (t: Test): string {
  if (process.env.FLOWPORT_UPDATE_SCREENSHOT === '1') return DOCS_SCREENSHOT
  const dir = mkdtempSync(join(tmpdir(), 'flowport-inspector-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  return join(dir, 'inspector.png')
}

/** Width and height from a PNG's header (signature, then the IHDR chunk). */
function pngSize (file: string): { width: number, height: number } | undefined {
  const bytes = readFileSync(file)
  if (!bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) || bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}
const WAIT = 90_000

async function openPage (t: Test, base: string, hash = ''): Promise<{ tab: Page, urls: string[], violations: () => Promise<string[]> }> {
  const browser = await launchChromium(t)
  const context = await browser.newContext({ viewport: VIEWPORT })
  const tab = await context.newPage()
  tab.setDefaultTimeout(WAIT)
  const urls: string[] = []
  tab.on('request', (request) => { urls.push(request.url()) })
  // CSP violations, recorded by the page itself from the first script on (a listener added by the test, not the app).
  await tab.addInitScript(() => {
    const w = globalThis as any
    w.violations = []
    w.document.addEventListener('securitypolicyviolation', (e: any) => { w.violations.push(`${e.violatedDirective} ${e.blockedURI}`) })
  })
  await tab.goto(`${base}/ui/${hash}`)
  return { tab, urls, violations: async () => await tab.evaluate(() => (globalThis as any).violations as string[]) }
}

async function startRun (app: App, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ workflowId: string, runId: string }> {
  const res = await app.inject({ method: 'POST', url: '/workflow/start', headers, payload: body })
  if (res.statusCode !== 200) throw new Error(`start: ${res.statusCode} ${res.body}`)
  return res.json()
}

const runHash = (workflowId: string, runId: string) => `#/run/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}`
const text = async (tab: Page, selector: string) => (await tab.locator(selector).first().textContent()) ?? ''

async function pickWorkflow (tab: Page, name: string): Promise<void> {
  await tab.locator('button.workflow strong', { hasText: new RegExp(`^${name}$`) }).click()
  await tab.locator('.workflow-detail h3', { hasText: new RegExp(`^${name}$`) }).waitFor()
}

t.test('auth off: hello from the generated form, markup stays text, a flaky run\'s attempts on the timeline', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')

  const page = await fetch(`${base}/ui/`)
  t.equal(page.status, 200)
  t.match(page.headers.get('content-security-policy'), /script-src 'self'/, 'the page carries its CSP')
  t.notMatch(page.headers.get('content-security-policy'), /unsafe-inline|unsafe-eval/, 'no inline or eval script allowed')

  const { tab, violations } = await openPage(t, base)
  await pickWorkflow(tab, 'flaky')
  await pickWorkflow(tab, 'hello')
  t.match(new URL(tab.url()).hash, /^#\/catalog\?(.*&)?workflow=hello$/, 'the chosen workflow is in the URL')
  t.match(await tab.title(), /^Catalog · hello · /, 'and in the title')
  await tab.reload()
  await tab.locator('.workflow-detail h3', { hasText: /^hello$/ }).waitFor()
  t.equal(await tab.locator('button.workflow[aria-current="true"] strong').textContent(), 'hello', 'a reload shows the same workflow')
  t.equal(await tab.locator('form.start input#input_name').inputValue(), '', 'the form is generated from the input schema')
  await tab.locator('form.start').getByRole('button', { name: 'JSON' }).click()
  await tab.locator('textarea#inputjson').fill('{"name": 5}')
  await tab.getByRole('button', { name: 'Start run' }).click()
  await tab.locator('ul.invalid', { hasText: '/name must be string' }).waitFor()
  t.equal(await tab.locator('textarea#inputjson').getAttribute('aria-invalid'), 'true', 'an input that does not fit the schema is not sent')
  await tab.locator('textarea#inputjson').fill('{"name": "Ada"}')
  await tab.getByRole('button', { name: 'Start run' }).click()
  await tab.locator('pre[aria-label="Output"]', { hasText: 'Hello, Ada!' }).waitFor()
  t.match(await text(tab, '.run-head'), /hello/, 'the run page names the workflow')
  t.equal(await tab.locator('.run-head .status').getAttribute('data-status'), 'completed')
  await tab.locator('.step[data-step="greet"] .status[data-status="completed"]').waitFor()

  // A workflow output holding markup: shown as the characters it is made of, never parsed.
  const markup = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
  await tab.goto(`${base}/ui/#/catalog?workflow=hello`)
  await pickWorkflow(tab, 'hello')
  await tab.locator('form.start input#input_name').fill(markup)
  await tab.getByRole('button', { name: 'Start run' }).click()
  await tab.locator('pre[aria-label="Output"]', { hasText: 'Hello,' }).waitFor()
  t.ok((await text(tab, 'pre[aria-label="Output"]')).includes(JSON.stringify(`Hello, ${markup}!`)), 'the output shows the markup as text')
  t.equal(await tab.locator('main img').count(), 0, 'no element was made from it')
  t.equal(await tab.evaluate(() => (globalThis as any).pwned), undefined, 'no script of it ran')
  // The CSP itself: an inline script injected into the page is refused and reported.
  await tab.evaluate(() => {
    const doc = (globalThis as any).document
    const script = doc.createElement('script')
    script.textContent = 'window.pwned = 3'
    doc.body.append(script)
  })
  t.equal(await tab.evaluate(() => (globalThis as any).pwned), undefined, 'an inline script does not run')
  t.ok((await violations()).some((v) => v.startsWith('script-src')), 'the browser reported the CSP violation')

  // flaky: a step that fails twice; the timeline draws three attempts, two failed with their errors.
  const flaky = await app.inject({ method: 'POST', url: '/workflow/run', payload: { workflowName: 'flaky', workflowId: uniqueId('inspector-flaky'), input: { failures: 2 } } })
  t.equal(flaky.statusCode, 200)
  const done = flaky.json()
  await tab.goto(`${base}/ui/${runHash(done.workflowId, done.runId)}`)
  const row = tab.locator('.timeline .row[data-node="unstable"]')
  await row.locator('.attempt-list li[data-attempt="3"]').waitFor()
  t.same(await row.locator('.attempt-list li').evaluateAll((items) => items.map((i) => i.className)),
    ['attempt attempt-failed', 'attempt attempt-failed', 'attempt attempt-completed'], 'every attempt, in order')
  t.equal(await row.locator('.bar').count(), 3, 'one bar per attempt')
  t.equal(await row.locator('.bar-failed').count(), 2, 'the failed attempts drawn as failed')
  t.match(await text(tab, '.timeline .row[data-node="unstable"] .attempt-errors'), /TransientError.*Attempt 1 of 3 fails on purpose/s, 'with their errors')
  await tab.locator('pre[aria-label="Output"]', { hasText: '"attempts": 3' }).waitFor()
  const screenshot = screenshotPath(t)
  await tab.screenshot({ path: screenshot, fullPage: true })
  const size = pngSize(screenshot)
  t.equal(size?.width, VIEWPORT.width, 'the screenshot is a PNG of the page\'s width')
  t.ok(size !== undefined && size.height >= VIEWPORT.height, 'and at least the viewport\'s height (the full page)')

  const doc = app.swagger() as { paths: Record<string, unknown> }
  t.same(Object.keys(doc.paths).filter((p) => p.startsWith('/ui')), [], 'the page is not an API operation')
})

t.test('auth on: the key prompt, a wrong key refused with the API\'s message, a sleepy run followed live across a dropped connection', async (t) => {
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: KEY })
  const sockets = trackSockets(app)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const auth = { authorization: `Bearer ${KEY}` }

  const { tab, urls } = await openPage(t, base)
  await tab.locator('form.token .refusal', { hasText: 'Missing credentials' }).waitFor()
  t.equal(await tab.evaluate(() => (globalThis as any).document.activeElement?.name), 'token', 'the key field has the focus')
  t.match(await tab.locator('form.token').textContent(), /flowport keys create/, 'and the form says where a key comes from')
  await tab.locator('form.token input[name="token"]').fill('not-the-key')
  await tab.getByRole('button', { name: 'Use this key' }).click()
  await tab.locator('form.token .refusal', { hasText: /^Invalid token$/ }).waitFor()
  t.pass('the API\'s own words for a wrong key')
  await tab.locator('form.token input[name="token"]').fill(KEY)
  await tab.getByRole('button', { name: 'Use this key' }).click()
  await pickWorkflow(tab, 'sleepy')
  t.equal(await tab.evaluate(() => (globalThis as any).sessionStorage.getItem('flowport.token')), KEY, 'the key is kept in sessionStorage')

  const run = await startRun(app, { workflowName: 'sleepy', workflowId: uniqueId('inspector-sleepy'), input: { steps: 6, delayMs: 700 } }, auth)
  await tab.goto(`${base}/ui/${runHash(run.workflowId, run.runId)}`)
  await tab.locator('.step[data-step="tick"]').first().waitFor()
  const before = await tab.locator('.step[data-step="tick"]').count()
  for (const socket of sockets) socket.destroy()
  await tab.locator('.live[data-live="ended"]').waitFor()
  t.ok(before < 6, `followed live: ${before} of 6 ticks before the drop`)
  t.ok(Number(await tab.locator('.steps .live').getAttribute('data-reconnects')) >= 1, 'the page reconnected')
  t.same(await tab.locator('.step[data-step="tick"] .status').evaluateAll((els) => els.map((e) => e.getAttribute('data-status'))),
    Array(6).fill('completed'), 'every tick exactly once, all completed')
  await tab.locator('pre[aria-label="Output"]', { hasText: '"ticks": 6' }).waitFor()
  await tab.waitForFunction(() => (globalThis as any).document.querySelectorAll('.timeline .row[data-node="tick"] .bar-completed').length === 6)
  t.pass('six completed ticks on the timeline')

  t.same(urls.filter((u) => u.includes(KEY) || u.includes('access_token')), [], 'the key never appears in a URL')
})

t.test('approval: answered through the update form, stopped with its cleanup visible', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const run = await startRun(app, { workflowName: 'approval', workflowId: uniqueId('inspector-approval'), input: { label: 'order 42' } })
  const { tab } = await openPage(t, base, runHash(run.workflowId, run.runId))

  const relabel = tab.locator('form.handler[data-handler="update-relabel"]')
  await relabel.waitFor()
  t.equal(await relabel.locator('input#update-relabel-_label').inputValue(), '', 'the payload\'s form is generated from the update\'s schema')
  await relabel.getByRole('button', { name: 'JSON' }).click()
  await relabel.locator('textarea').fill('{"label": ""}')
  await relabel.getByRole('button', { name: 'Update' }).click()
  await relabel.locator('.problem[data-error="UpdateRejectedError"]', { hasText: /The workflow refused the update.*label must not be empty/ }).waitFor()
  t.pass('the validator\'s refusal is shown in words, with the API\'s message')
  await relabel.locator('textarea').fill('{"label": "order 42 (rush)"}')
  await relabel.getByRole('button', { name: 'Update' }).click()
  await relabel.locator('.handler-result', { hasText: '"previous": "order 42"' }).waitFor()
  const state = tab.locator('form.handler[data-handler="query-state"]')
  await state.getByRole('button', { name: 'Query' }).click()
  await state.locator('.handler-result', { hasText: 'order 42 (rush)' }).waitFor()
  t.pass('the query answers with the new label')

  await tab.getByRole('button', { name: 'Stop (with cleanup)…' }).click()
  await tab.locator('.controls input[name="controlReason"]').fill('label was wrong')
  await tab.getByRole('button', { name: 'Yes, stop' }).click()
  await tab.locator('.run-head .status[data-status="canceled"]').waitFor()
  await tab.locator('.step[data-step="releaseHold"] .status[data-status="completed"]').waitFor()
  t.match(await text(tab, '.step[data-step="releaseHold"]'), /cleanup/i, 'the cleanup step is marked as cleanup')
  await tab.locator('.timeline .row-cleanup[data-node="releaseHold"]').waitFor()
  t.pass('the cleanup is on the timeline')
  t.match(await text(tab, '.outcome'), /Stopped on request/, 'the canceled run says it was stopped, in words')

  const other = await startRun(app, { workflowName: 'approval', workflowId: uniqueId('inspector-terminate'), input: { label: 'x' } })
  await tab.goto(`${base}/ui/${runHash(other.workflowId, other.runId)}`)
  await tab.getByRole('button', { name: 'Terminate…' }).click()
  t.equal((await app.inject({ method: 'GET', url: `/workflow/${other.workflowId}/status` })).json().status, 'running', 'nothing happens before the confirmation')
  await tab.getByRole('button', { name: 'Yes, terminate' }).click()
  await tab.locator('.run-head .status[data-status="terminated"]').waitFor()
  t.pass('terminated after confirmation')
})

t.test('runs: the list with its filter, and a new run appears without a reload', async (t) => {
  const app = await build(t, { SERVICE_RUNS_FEED_DELAY_MS: '200', SERVICE_RUNS_FEED_POLL_MS: '200' })
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const workflowId = uniqueId('inspector-list')
  const { tab } = await openPage(t, base, '#/runs?workflowName=hello')
  await tab.locator('.live[data-live="open"]').waitFor()
  const run = await startRun(app, { workflowName: 'hello', workflowId, input: { name: 'list' } })
  const row = tab.locator(`tr[data-run-id="${run.runId}"]`)
  await row.locator('.status[data-status="completed"]').waitFor()
  t.match(await row.textContent(), new RegExp(workflowId), 'the new run is listed, closed')
  await row.getByRole('link').click()
  await tab.locator('pre[aria-label="Output"]', { hasText: 'Hello, list!' }).waitFor()
  t.pass('and opens')
})

t.test('runs: Load more reads the next page with the API\'s cursor until there is none', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  // A window only this test's runs started in (other test files may run hello meanwhile: their runs
  // in the window are listed too, and counted through the API below).
  const startedAfter = new Date(Date.now() - 1000).toISOString()
  const ours: string[] = []
  for (let i = 0; i < 3; i++) ours.push((await startRun(app, { workflowName: 'hello', workflowId: uniqueId(`inspector-page-${i}`), input: { name: `page ${i}` } })).runId)
  const startedBefore = new Date(Date.now() + 1000).toISOString()
  const filter = `workflowName=hello&startedAfter=${encodeURIComponent(startedAfter)}&startedBefore=${encodeURIComponent(startedBefore)}`
  const listed = await eventually(async () => (await app.inject({ method: 'GET', url: `/workflow/runs?${filter}&pageSize=1000` })).json(),
    (page) => ours.every((id) => page.runs.some((r: { runId: string }) => r.runId === id)))
  t.ok(ours.every((id) => listed.runs.some((r: { runId: string }) => r.runId === id)), 'the API lists the three runs')

  const { tab } = await openPage(t, base, `#/runs?${filter}&pageSize=2`)
  const rows = tab.locator('.runs-table tbody tr')
  const more = tab.getByRole('button', { name: 'Load more' })
  await more.waitFor()
  t.equal(await rows.count(), 2, 'the first page holds pageSize runs')
  let clicks = 0
  while (await more.count() > 0) {
    // Waits for the page to be read and shown, not for more rows: a page may bring only runs the
    // live feed already put on top (other test files start hello runs in the window meanwhile).
    const answered = tab.waitForResponse((r) => r.url().includes('/workflow/runs?') && r.url().includes('pageToken='))
    await more.click()
    clicks++
    await answered
    await tab.waitForFunction(() => {
      const button = [...(globalThis as any).document.querySelectorAll('button')].find((b: any) => b.textContent === 'Load more')
      return button === undefined || button.disabled === false
    })
  }
  t.ok(clicks >= 1, `Load more was clicked ${clicks} time(s), until the API had no next page`)
  const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-run-id')))
  t.equal(new Set(ids).size, ids.length, 'no run listed twice')
  t.ok(ours.every((id) => ids.includes(id)), 'the three runs are all listed')
  t.equal(ids.length, listed.runs.length, 'as many rows as the API lists for the filter')
})

t.test('catalog: every published catalog to pick from; the input editor starts from the schema\'s examples', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  // A second catalog whose hello has `examples` in its input schema (published as a worker would;
  // no worker serves it, which the picker says).
  const served = (await app.inject({ method: 'GET', url: '/workflow/catalog' })).json()
  const hello: CatalogWorkflow = served.workflows.find((w: CatalogWorkflow) => w.name === 'hello')
  const catalog = uniqueId('inspector-examples')
  const example = { name: 'Grace Hopper' }
  await publishCatalog(app.engine.client, catalog, [{ ...hello, inputSchema: { ...hello.inputSchema as object, examples: [example] } }])
  t.teardown(async () => { await app.engine.client.workflow.getHandle(catalogWorkflowId(catalog)).terminate('test cleanup') })
  const ready = await eventually(async () => (await app.inject({ method: 'GET', url: '/ready' })).json(),
    (body) => body.catalogs.some((c: { catalog: string }) => c.catalog === catalog))
  t.ok(ready.catalogs.some((c: { catalog: string }) => c.catalog === catalog), '/ready lists the new catalog')

  const { tab } = await openPage(t, base, '#/catalog')
  await pickWorkflow(tab, 'hello')
  const picker = tab.locator('form.catalog-pick select[name="catalog"]')
  await picker.locator(`option[value="${catalog}"]`).waitFor({ state: 'attached' })
  // The property, not the attribute: Preact leaves out a value attribute that equals the option's text.
  const options = await picker.locator('option').evaluateAll((els) => els.map((e) => (e as any).value as string))
  t.same([served.catalog, catalog].filter((id) => !options.includes(id)), [], `the default catalog and the new one are offered (${options.join(', ')})`)
  t.equal(await picker.inputValue(), served.catalog, 'the catalog shown is the one selected')
  t.match(await picker.locator(`option[value="${catalog}"]`).textContent(), /no worker/, 'a catalog without a worker says so')

  await picker.selectOption(catalog)
  await tab.locator('.catalog-head h2 code', { hasText: catalog }).waitFor()
  await tab.locator('.workflow-detail h3', { hasText: /^hello$/ }).waitFor()
  t.equal(await tab.locator('form.start input#input_name').inputValue(), example.name, 'the form starts from the input schema\'s first example')
  t.equal(await tab.locator('form.catalog-pick select[name="catalog"]').inputValue(), catalog, 'the picker shows the catalog now open')
})

t.test('links: a parent\'s child expands into its own timeline, a continue-as-new chain links both ways, Temporal\'s UI', async (t) => {
  const app = await build(t, { SERVICE_UI_TEMPORAL_URL: 'http://127.0.0.1:8233' })
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const parent = (await app.inject({ method: 'POST', url: '/workflow/run', payload: { workflowName: 'parent', workflowId: uniqueId('inspector-parent'), input: { name: 'Kid' } } })).json()
  t.equal(parent.status, 'completed')
  const { tab } = await openPage(t, base, runHash(parent.workflowId, parent.runId))
  const child = tab.locator('.timeline .row-child').first()
  await child.getByRole('button', { name: 'expand' }).click()
  await child.locator('.nested .timeline .row[data-node="greet"] .bar-completed').waitFor()
  t.pass('the child\'s own timeline, nested under its row')
  t.equal(await tab.locator('.facts a.child').count(), 1, 'the child is linked from the run\'s facts')
  t.equal(await tab.locator('.facts a[target="_blank"]').getAttribute('href'),
    `http://127.0.0.1:8233/namespaces/default/workflows/${encodeURIComponent(parent.workflowId)}/${parent.runId}/history`, 'the same run in Temporal\'s UI')
  await tab.locator('.facts a.child').click()
  await tab.locator('.facts dt', { hasText: 'Parent' }).waitFor()
  await tab.locator('pre[aria-label="Output"]', { hasText: 'Hello, Kid!' }).waitFor()
  t.pass('the child links back to its parent')

  const relay = (await app.inject({ method: 'POST', url: '/workflow/run', payload: { workflowName: 'relay', workflowId: uniqueId('inspector-relay'), input: { hops: 1 } } })).json()
  t.equal(relay.status, 'completed')
  await tab.goto(`${base}/ui/#/run/${encodeURIComponent(relay.workflowId)}/${relay.runId}`)
  await tab.locator('.facts a', { hasText: 'previous run' }).click()
  await tab.locator('.run-head .status[data-status="continued_as_new"]').waitFor()
  await tab.locator('.facts a', { hasText: 'next run' }).waitFor()
  t.pass('the first run of the chain links to the next')
})
