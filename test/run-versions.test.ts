/**
 * Each run's worker deployment version (`version`, `versioning`) in its status, the runs list, the
 * runs change feed and the inspector, and `version` in a start body pinning the run to it: two
 * versioned workers of a catalog of this file's own (test/fixtures/visible, build ids v1 and v2),
 * v1 made current; the shared test worker is unversioned.
 * Needs Debian's chromium at /usr/bin/chromium (`apt-get install -y chromium`); never downloads one.
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import { build } from './helpers/app.js'
import { spawnWorker } from './helpers/worker-process.js'
import { call, eventually, newId, start, waitClosed } from './helpers/workflows.js'
import { openSse, type Frame } from './helpers/history.js'
import { launchChromium } from './helpers/browser.js'
import type { App } from '../app.js'
import type { RunChange } from '../schemas/runs-feed.js'
import type { WorkflowStatus } from '../schemas/workflow.js'

const catalog = `visible-${randomUUID()}`
const fixture = resolve('test/fixtures/visible')
const WAIT = 90_000

const versionedWorker = (t: Test, buildId: string) =>
  spawnWorker(t, { SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: fixture, SERVICE_WORKER_VERSIONING: 'true', SERVICE_WORKER_BUILD_ID: buildId, LOG_LEVEL: 'info' }, process.cwd())

/** Makes `buildId` the deployment's current version, once the engine knows it (its worker polled). */
async function makeCurrent (app: App, buildId: string): Promise<void> {
  const { namespace } = app.engine.client.options
  const set = async () => await app.engine.client.workflowService.setWorkerDeploymentCurrentVersion({ namespace, deploymentName: catalog, buildId, identity: 'run-versions test' })
    .then(() => true, (err: unknown) => String(err))
  const outcome = await eventually(set, (ok) => ok === true)
  if (outcome !== true) throw new Error(`could not make ${buildId} current: ${outcome}`)
}

const startIn = async (t: Test, app: App, body: Record<string, unknown>) =>
  await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'waiting', catalog, input: {}, workflowId: newId('waiting'), ...body } })

const statusOf = async (t: Test, app: App, run: { workflowId: string, runId: string }) =>
  (await call(t, app, { method: 'GET', url: `/workflow/${run.workflowId}/runs/${run.runId}/status`, route: '/workflow/{id}/runs/{rid}/status' })).body as WorkflowStatus

const finish = async (app: App, run: { workflowId: string, runId: string }) => {
  const res = await app.inject({ method: 'POST', url: `/workflow/${run.workflowId}/signal/finish`, payload: { payload: {} } })
  if (res.statusCode !== 200) throw new Error(`signal: ${res.statusCode} ${res.body}`)
}

const closedChanges = (frames: Frame[]) => frames.filter((f) => f.event === 'run').map((f) => JSON.parse(f.data) as RunChange).filter((c) => c.change === 'closed')

t.test('versions of runs: status, list, feed, a pinning start, a refused version, the inspector', async (t) => {
  const app = await build(t, { SERVICE_RUNS_FEED_POLL_MS: '200', SERVICE_RUNS_FEED_DELAY_MS: '500' })
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  // v1 current before v2 starts: a second version's worker finishes starting (publishing its catalog
  // through the catalog workflow, which follows the current version) only once some version is current.
  const v1 = versionedWorker(t, 'v1')
  await v1.waitFor(`Worker polling catalog ${catalog}`)
  await makeCurrent(app, 'v1')
  const v2 = versionedWorker(t, 'v2')
  await v2.waitFor(`Worker polling catalog ${catalog}`)
  const feed = await openSse(`${base}/workflow/runs/stream?catalog=${encodeURIComponent(catalog)}`)
  t.equal(feed.statusCode, 200)
  t.teardown(() => { feed.close() })

  const plain = (await startIn(t, app, {})).body as { workflowId: string, runId: string }
  const pinned = await startIn(t, app, { version: { deploymentName: catalog, buildId: 'v2' } })
  t.equal(pinned.status, 200, 'a start may name a version the engine knows')
  const onV2 = pinned.body as { workflowId: string, runId: string }
  const versionOf = async (run: { workflowId: string, runId: string }) => await eventually(async () => await statusOf(t, app, run), (s) => s.version !== null)

  const open = await versionOf(plain)
  t.same({ version: open.version, versioning: open.versioning }, { version: { deploymentName: catalog, buildId: 'v1' }, versioning: 'pinned' },
    'a new run goes to the current version, pinned by default')
  const latest = await call(t, app, { method: 'GET', url: `/workflow/${plain.workflowId}/status`, route: '/workflow/{id}/status' })
  t.same(latest.body.version, { deploymentName: catalog, buildId: 'v1' }, 'the unpinned status route says it too')
  const overridden = await versionOf(onV2)
  t.same({ version: overridden.version, versioning: overridden.versioning }, { version: { deploymentName: catalog, buildId: 'v2' }, versioning: 'pinned' },
    'a start with `version` runs on that version, though another is current')

  // The fixture's runs are pinned (the worker's default); the engine's own override makes one auto-upgrade.
  const upgrading = await app.engine.client.workflow.start('waiting', { taskQueue: catalog, workflowId: newId('upgrading'), args: [{}], versioningOverride: 'AUTO_UPGRADE' })
  const autoUpgrade = { workflowId: upgrading.workflowId, runId: upgrading.firstExecutionRunId }
  const moving = await versionOf(autoUpgrade)
  t.same({ version: moving.version, versioning: moving.versioning }, { version: { deploymentName: catalog, buildId: 'v1' }, versioning: 'autoUpgrade' },
    'an auto-upgrading run says so')

  const unversioned = await start(t, app, 'hello', { name: 'Ada' })
  t.equal(await waitClosed(app, unversioned.workflowId, unversioned.runId), 'COMPLETED')
  const shared = await statusOf(t, app, unversioned)
  t.same({ version: shared.version, versioning: shared.versioning }, { version: null, versioning: null }, 'a run of an unversioned worker has no version')

  for (const run of [plain, onV2, autoUpgrade]) await finish(app, run)
  for (const run of [plain, onV2, autoUpgrade]) t.equal(await waitClosed(app, run.workflowId, run.runId), 'COMPLETED')
  const closed = await statusOf(t, app, plain)
  t.same(closed.version, { deploymentName: catalog, buildId: 'v1' }, 'a closed run keeps its version')
  t.same((await statusOf(t, app, plain)).version, closed.version, 'also when answered from the closed-run cache')

  // The list reads the visibility store, which follows runs eventually.
  const listed = await eventually(async () => (await call(t, app, { method: 'GET', url: `/workflow/runs?catalog=${encodeURIComponent(catalog)}&status=completed`, route: '/workflow/runs' })).body.runs as WorkflowStatus[],
    (runs) => runs.length === 3)
  const listedOf = (workflowId: string) => listed.find((r) => r.workflowId === workflowId)
  t.equal(listedOf(plain.workflowId)?.version?.buildId, 'v1', 'the runs list shows the version of each run')
  t.equal(listedOf(onV2.workflowId)?.version?.buildId, 'v2', 'and of the pinned one')
  t.same([plain, onV2, autoUpgrade].map((r) => listedOf(r.workflowId)?.versioning), ['pinned', 'pinned', 'autoUpgrade'], 'with its mode')
  const sharedListed = await eventually(async () => (await call(t, app, { method: 'GET', url: `/workflow/runs?workflowName=hello&startedAfter=${encodeURIComponent(shared.startTime!)}&pageSize=100`, route: '/workflow/runs' })).body.runs as WorkflowStatus[],
    (runs) => runs.some((r) => r.runId === unversioned.runId))
  t.same(sharedListed.find((r) => r.runId === unversioned.runId)?.version, null, 'an unversioned run is listed with version null')

  const frames = await feed.until((f) => closedChanges(f).length === 3)
  const fed = (workflowId: string) => closedChanges(frames).find((c) => c.run.workflowId === workflowId)?.run
  t.equal(fed(plain.workflowId)?.version?.buildId, 'v1', 'the change feed shows each run\'s version')
  t.equal(fed(onV2.workflowId)?.version?.buildId, 'v2')
  t.same([plain, onV2, autoUpgrade].map((r) => fed(r.workflowId)?.versioning), ['pinned', 'pinned', 'autoUpgrade'], 'and its mode')

  await t.test('an Idempotency-Key counts the version as part of the request', async (t) => {
    const key = `versions-${randomUUID()}`
    const keyed = async (body: Record<string, unknown>) => await call(t, app, {
      method: 'POST', url: '/workflow/start', route: '/workflow/start', headers: { 'idempotency-key': key }, payload: { workflowName: 'waiting', catalog, input: {}, ...body }
    })
    const first = await keyed({ version: { deploymentName: catalog, buildId: 'v2' } })
    t.equal(first.status, 200)
    t.teardown(async () => { await app.engine.client.workflow.getHandle(first.body.workflowId).terminate('test over') })
    const again = await keyed({ version: { deploymentName: catalog, buildId: 'v2' } })
    t.same(again.body, first.body, 'the same request again answers the same run')
    const other = await keyed({})
    t.equal(other.status, 422, 'without the version it is another request')
    t.equal(other.body.error, 'IdempotencyKeyReusedError')
  })

  await t.test('a version the engine does not know is a 400 naming /version', async (t) => {
    for (const [route, extra] of [['/workflow/start', {}], ['/workflow/run', {}], ['/workflow/start', { update: { name: 'ping', payload: {} } }]] as const) {
      const res = await call(t, app, { method: 'POST', url: route, route, payload: { workflowName: 'waiting', catalog, input: {}, version: { deploymentName: catalog, buildId: 'v9' }, ...extra } })
      t.equal(res.status, 400, `${route}${'update' in extra ? ' with update' : ''}: ${JSON.stringify(res.body)}`)
      t.equal(res.body.error, 'ValidationError')
      t.match(res.body.issues, [{ path: '/version', in: 'body', message: new RegExp(`no version ${catalog}:v9 of catalog ${catalog}`) }])
    }
    const other = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'waiting', catalog, input: {}, version: { deploymentName: 'elsewhere', buildId: 'v1' } } })
    t.equal(other.status, 400, 'a version of another deployment')
    t.match(other.body.issues, [{ path: '/version' }])
    const malformed = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'waiting', catalog, input: {}, version: { buildId: '' } } })
    t.equal(malformed.status, 400, 'a malformed version is refused by the schema')
    t.match(malformed.body.issues, [{ path: '/version' }])
  })

  await t.test('the inspector shows each run\'s version and mode (Chromium)', async (t) => {
    const browser = await launchChromium(t)
    const tab = await browser.newPage()
    tab.setDefaultTimeout(WAIT)
    await tab.goto(`${base}/ui/#/run/${encodeURIComponent(onV2.workflowId)}/${encodeURIComponent(onV2.runId)}`)
    const version = tab.locator('.run-version .version[data-build-id="v2"]')
    await version.waitFor()
    t.match(await version.textContent(), /v2\s+pinned/, 'the run page shows the build id and the mode')
    t.equal(await version.getAttribute('title'), `Deployment ${catalog}, build v2`, 'the deployment in the title')

    await tab.goto(`${base}/ui/#/run/${encodeURIComponent(unversioned.workflowId)}/${encodeURIComponent(unversioned.runId)}`)
    await tab.locator('.run-head .status[data-status="completed"]').waitFor()
    t.equal((await tab.locator('.run-version .version').textContent())?.trim(), 'unversioned', 'an unversioned run says so')

    await tab.goto(`${base}/ui/#/runs?catalog=${encodeURIComponent(catalog)}`)
    for (const [run, buildId, mode] of [[plain, 'v1', 'pinned'], [onV2, 'v2', 'pinned'], [autoUpgrade, 'v1', 'auto-upgrade']] as const) {
      const cell = tab.locator(`tr[data-run-id="${run.runId}"] .version[data-build-id="${buildId}"]`)
      await cell.waitFor()
      t.match(await cell.textContent(), new RegExp(`${buildId}\\s+${mode}`), `the runs list shows ${buildId}, ${mode}`)
      t.equal(await cell.getAttribute('title'), `Deployment ${catalog}, build ${buildId}`)
    }
  })
})
