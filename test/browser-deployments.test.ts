/**
 * The inspector's deployment pages (#/deployments, #/deployment/{name}; docs/inspector.md) in
 * Debian's Chromium against the real API and engine, with two versioned workers of one workflow
 * (test/fixtures/rollout/{v1,v2}): the page lists the deployment and both versions with their
 * pollers and open runs (linked to the runs list filtered by version); a ramp set from the page
 * reaches the engine with the ETag the page read as If-Match; a change made meanwhile by someone
 * else makes the page's next change a 412 that it explains and reads again; a version whose workers
 * stopped shows no pollers and its last poll, and the 409 is confirmed with allowNoPollers; a key
 * without scope `control` sees the deployment with its actions disabled and why; at phone width
 * (390 px) no page scrolls sideways.
 * Needs Debian's chromium at /usr/bin/chromium (`apt-get install -y chromium`); never downloads one.
 */
import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import t, { type Test } from 'tap'
import type { Browser, Page, Request } from 'playwright-core'
import type { Deployment } from '../schemas/deployments.js'
import { build } from './helpers/app.js'
import { launchChromium } from './helpers/browser.js'
import { bearer, keysFile } from './helpers/keys.js'
import { call, eventually, firstTaskCompleted } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'

const WAIT = 90_000
const DESKTOP = { width: 1280, height: 800 }
const PHONE = { width: 390, height: 844 }

const catalog = `inspector-deploy-${randomUUID()}`
const { keys, file } = keysFile(t, [
  { id: 'operator', scopes: ['read', 'run', 'interact', 'control'] },
  { id: 'viewer', scopes: ['read'] }
])
const operator = bearer(keys.operator!)
const url = `/deployments/${catalog}`
const route = '/deployments/{deploymentName}'

const versioned = (buildId: string) => spawnWorker(t, {
  SERVICE_CATALOG_ID: catalog,
  SERVICE_WORKFLOWS_DIR: resolve(`test/fixtures/rollout/${buildId}`),
  SERVICE_WORKER_VERSIONING: 'true',
  SERVICE_WORKER_BUILD_ID: buildId
}, process.cwd())

const versionOf = (d: Deployment, buildId: string) => d.versions.find((v) => v.version.buildId === buildId)

/** A tab at `viewport` whose session holds `key` (as the key prompt would leave it), and the changes it sends. */
async function openTab (t: Test, browser: Browser, key: string, viewport = DESKTOP): Promise<{ tab: Page, changes: Request[] }> {
  const context = await browser.newContext({ viewport })
  t.teardown(() => context.close())
  await context.addInitScript((k) => { (globalThis as any).sessionStorage.setItem('flowport.token', k) }, key)
  const tab = await context.newPage()
  tab.setDefaultTimeout(WAIT)
  const changes: Request[] = []
  tab.on('request', (request) => { if (request.method() !== 'GET' && request.url().includes('/deployments/')) changes.push(request) })
  return { tab, changes }
}

/** How far the page scrolls sideways (0: it fits). */
const overflow = async (tab: Page) => await tab.evaluate(() => {
  const root = (globalThis as any).document.documentElement
  return (root.scrollWidth as number) - (root.clientWidth as number)
})

t.test('deployment pages: versions, pollers and open runs; ramp, conflict, no pollers, a read-only key, phone width', async (t) => {
  const app = await build(t, { SERVICE_CATALOG_ID: catalog, SERVICE_API_KEYS_FILE: file })
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const read = async () => {
    const res = await call(t, app, { method: 'GET', url, route, headers: operator })
    return res.status === 200 ? res.body as Deployment : null
  }

  // v1 first, made current: a second version's worker finishes starting (publishes its catalog) only
  // once some version is current (worker/README.md).
  await versioned('v1').waitFor('Worker polling')
  t.comment('v1 polls')
  await eventually(read, (d) => d !== null && versionOf(d, 'v1') !== undefined)
  const current = await call(t, app, { method: 'PUT', url: `${url}/current`, route: `${route}/current`, headers: operator, payload: { buildId: 'v1' } })
  t.equal(current.status, 200, 'v1 is current')
  const v2 = versioned('v2')
  await v2.waitFor('Worker polling')
  t.comment('v2 polls')
  // A run that stays open on v1: the open run the page counts and links.
  const held = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', headers: operator, payload: { workflowName: 'rollout', input: { hold: true } } })
  t.equal(held.status, 200)
  const { workflowId: heldId, runId: heldRun } = held.body as { workflowId: string, runId: string }
  t.teardown(async () => { await app.engine.client.workflow.getHandle(heldId).terminate('test over').catch(() => {}) })
  t.ok(await firstTaskCompleted(app, heldId, heldRun), 'the held run took its first task')
  const ready = await eventually(read, (d) => d !== null && versionOf(d, 'v2')?.pollers === 1 && versionOf(d, 'v1')?.pollers === 1 && versionOf(d, 'v1')?.openRuns === 1, 240)
  t.comment('the engine counts both versions\' pollers and v1\'s open run')
  t.match(ready, { current: { buildId: 'v1' }, ramping: null }, 'the engine holds both versions, v1 current with its open run')

  const browser = await launchChromium(t)
  const { tab, changes } = await openTab(t, browser, keys.operator!)

  await t.test('the list and one deployment: versions, state, pollers, open runs linked to the runs list', async (t) => {
    await tab.goto(`${base}/ui/#/deployments`)
    t.equal(await tab.locator('nav a.active').textContent(), 'Deployments', 'a nav link "Deployments"')
    const row = tab.locator(`tr[data-deployment="${catalog}"]`)
    await row.waitFor()
    t.match(await row.textContent(), /v1/, 'the list shows the current version')
    await row.getByRole('link', { name: catalog }).click()
    const v1Row = tab.locator('tr[data-build-id="v1"]')
    await v1Row.locator('.state[data-state="current"]').waitFor()
    const v2Row = tab.locator('tr[data-build-id="v2"]')
    await v2Row.locator('.state[data-state="inactive"]').waitFor()
    t.equal(await v1Row.locator('.pollers').getAttribute('data-pollers'), '1', 'v1: one live poller')
    t.equal(await v2Row.locator('.pollers').getAttribute('data-pollers'), '1', 'v2: one live poller')
    t.match(await v2Row.locator('td[data-label="Pollers"]').textContent(), /1 live\s+last poll /, 'live, with its last poll')
    const open = v1Row.locator('a.open-runs')
    t.equal(await open.textContent(), '1 open')
    t.equal(await open.getAttribute('href'), `#/runs?version=${encodeURIComponent(`${catalog}:v1`)}&status=running`, 'linked to the runs list filtered by version')
    t.equal(await overflow(tab), 0, 'no sideways scroll at 1280 px')
    await open.click()
    await tab.locator(`.runs-table tr[data-run-id="${heldRun}"]`).waitFor()
    t.equal(await tab.locator('.runs-table tbody tr').count(), 1, 'only the run on v1 is listed')
    t.equal(await tab.locator(`.runs-table tr[data-run-id="${heldRun}"] .version`).getAttribute('data-build-id'), 'v1', 'with its version')
    t.equal(await tab.locator('form.filters input[name="version"]').inputValue(), `${catalog}:v1`, 'the filter shows in the form')
  })

  await t.test('a ramp from the page reaches the engine, guarded by the ETag the page read', async (t) => {
    const before = await call(t, app, { method: 'GET', url, route, headers: operator })
    await tab.goto(`${base}/ui/#/deployment/${encodeURIComponent(catalog)}`)
    const v2Row = tab.locator('tr[data-build-id="v2"]')
    await v2Row.locator('input[name="percentage"]').fill('30')
    await v2Row.getByRole('button', { name: 'Ramp' }).click()
    await tab.locator('.change-result', { hasText: 'Ramped v2 to 30 %' }).waitFor()
    await v2Row.locator('.state[data-state="ramping"]', { hasText: 'ramping 30 %' }).waitFor()
    t.match((await read())?.ramping, { version: { buildId: 'v2' }, percentage: 30 }, 'the engine ramps v2 to 30 %')
    t.equal((await read())?.lastModifiedBy, 'flowport:operator', 'with the key\'s identity')
    const put = changes.find((r) => r.method() === 'PUT' && r.url().endsWith('/ramp'))
    t.equal(put?.headers()['if-match'], before.headers.etag, 'the ramp carried the ETag the page read')
  })

  await t.test('a stale ETag: the page says someone else changed the deployment, and reads it again', async (t) => {
    const elsewhere = await call(t, app, { method: 'PUT', url: `${url}/ramp`, route: `${route}/ramp`, headers: operator, payload: { buildId: 'v2', percentage: 40 } })
    t.equal(elsewhere.status, 200, 'another operator ramps to 40 % meanwhile')
    await tab.locator('.ramp').getByRole('button', { name: 'Stop ramp' }).click()
    await tab.locator('.conflict[role="alert"]', { hasText: 'Someone else changed this deployment' }).waitFor()
    t.match((await read())?.ramping, { percentage: 40 }, 'nothing changed: the other change stands')
    await tab.locator('tr[data-build-id="v2"] .state', { hasText: 'ramping 40 %' }).waitFor()
    t.pass('the page read the deployment again')
    const stop = tab.locator('.ramp').getByRole('button', { name: 'Stop ramp' })
    await stop.click()
    await tab.locator('.change-result', { hasText: 'Stopped the ramp' }).waitFor()
    t.equal((await read())?.ramping, null, 'with the fresh ETag the change lands')
  })

  // v2's workers stop now; the engine counts a poller as live for up to 70 s after its last poll,
  // which the next two subtests (they need no live poller) take part of.
  await v2.kill('SIGKILL')

  await t.test('a key without scope control sees the deployment, its actions disabled and why', async (t) => {
    const { tab: viewer, changes: sent } = await openTab(t, browser, keys.viewer!)
    await viewer.goto(`${base}/ui/#/deployment/${encodeURIComponent(catalog)}`)
    await viewer.locator('tr[data-build-id="v2"]').waitFor()
    await viewer.locator('.refusal-note', { hasText: 'Key viewer lacks scope control' }).waitFor()
    const make = viewer.locator('tr[data-build-id="v2"]').getByRole('button', { name: 'Make current' })
    t.ok(await make.isDisabled(), 'Make current is disabled')
    t.match(await make.getAttribute('title'), /lacks scope control/, 'and says why')
    const actions = viewer.locator('.version-actions button, .ramp button, .rollback button')
    t.ok(await actions.count() >= 2, 'the actions are shown')
    for (const button of await actions.all()) t.ok(await button.isDisabled(), `${await button.textContent()}: disabled`)
    t.same(sent, [], 'the page sent no change')
  })

  await t.test('at phone width no page scrolls sideways', async (t) => {
    const { tab: phone } = await openTab(t, browser, keys.operator!, PHONE)
    for (const hash of ['#/deployments', `#/deployment/${encodeURIComponent(catalog)}`, `#/runs?version=${encodeURIComponent(`${catalog}:v1`)}`]) {
      await phone.goto(`${base}/ui/${hash}`)
      await phone.locator('main section h2').waitFor()
      await phone.locator('main table tbody tr').first().waitFor()
      t.equal(await overflow(phone), 0, `${hash}: scrollWidth = clientWidth at 390 px`)
    }
    await phone.goto(`${base}/ui/#/deployment/${encodeURIComponent(catalog)}`)
    const make = phone.locator('tr[data-build-id="v2"]').getByRole('button', { name: 'Make current' })
    const box = await make.boundingBox()
    t.ok(box !== null && box.x >= 0 && box.x + box.width <= PHONE.width, 'the version\'s actions are on screen')
  })

  await t.test('a version whose workers stopped: no pollers, its last poll, and a change confirmed with allowNoPollers', async (t) => {
    const gone = await eventually(read, (d) => versionOf(d!, 'v2')?.pollers === 0, 480)
    t.equal(versionOf(gone!, 'v2')?.pollers, 0, 'the API counts no live poller of v2')
    // The tab is on this deployment already: "Read again" reads it anew.
    await tab.getByRole('button', { name: 'Read again' }).click()
    const v2Row = tab.locator('tr[data-build-id="v2"]')
    await v2Row.locator('.pollers[data-pollers="0"]').waitFor()
    t.match(await v2Row.locator('td[data-label="Pollers"]').textContent(), /none\s+last poll /, 'none, and when it was last seen')
    await v2Row.getByRole('button', { name: 'Make current' }).click()
    await tab.locator('.problem', { hasText: 'No worker of version v2' }).waitFor()
    t.match((await read())?.current, { buildId: 'v1' }, 'refused: v1 stays current')
    await tab.getByRole('button', { name: 'Send with allowNoPollers' }).click()
    await tab.locator('.change-result', { hasText: 'Made v2 current' }).waitFor()
    t.match((await read())?.current, { buildId: 'v2' }, 'confirmed: v2 is current')
    const sent = changes.filter((r) => r.url().endsWith('/current')).map((r) => r.postDataJSON() as unknown)
    t.same(sent, [{ buildId: 'v2' }, { buildId: 'v2', allowNoPollers: true }], 'the confirmation sent allowNoPollers')
    // Back to v1, whose worker polls: the held run's version.
    const back = await call(t, app, { method: 'PUT', url: `${url}/current`, route: `${route}/current`, headers: operator, payload: { buildId: 'v1' } })
    t.equal(back.status, 200)
  })
})
