/**
 * Worker deployment versioning against the real engine (docs/versioning.md): two
 * versions of one catalog (test/fixtures/versioning/v1 and v2; `gated` changes incompatibly,
 * `moving` is autoUpgrade and replays on either). A pinned run started on v1 finishes on v1 after
 * v2 became current, new runs go to v2, the autoUpgrade run moves to v2, and the API's catalog
 * shows the current version's entries, the current version and the versions serving open runs.
 * Flowport's own catalog and webhook workflows keep working once v1's workers are gone.
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import { build } from './helpers/app.js'
import { call, eventually, firstTaskCompleted, start } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'
import { newSecret, receiver, verified } from './helpers/webhooks.js'
import { catalogWorkflowId, type Catalog } from '@flowport/core/contract'
import type { App } from '../app.js'
import type { CatalogResponse } from '../schemas/catalog.js'

const catalog = `versioning-${randomUUID()}`
const fixture = (version: string) => resolve(`test/fixtures/versioning/${version}`)
const PINNED = 1 // temporal.api.enums.v1.VersioningBehavior
const AUTO_UPGRADE = 2

const startVersion = async (t: Test, buildId: string) => {
  const worker = spawnWorker(t, {
    SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: fixture(buildId), SERVICE_WORKER_VERSIONING: 'true', SERVICE_WORKER_BUILD_ID: buildId
  }, process.cwd())
  await worker.waitFor(`Worker polling catalog ${catalog}`)
  return worker
}

/** What the rollout commands do: make a version current (the engine knows it once its worker polls). */
const makeCurrent = async (app: App, buildId: string) => {
  const set = async () => await app.engine.client.workflowService.setWorkerDeploymentCurrentVersion({
    namespace: app.engine.namespace, deploymentName: catalog, buildId, identity: 'worker-versioning.test'
  }).then(() => true, () => false)
  return await eventually(set, (done) => done)
}

/** The version a run is on and its behaviour, as the engine describes it. */
const versioningOf = async (app: App, workflowId: string) => {
  const { raw } = await app.engine.client.workflow.getHandle(workflowId).describe()
  const info = raw.workflowExecutionInfo?.versioningInfo
  return { buildId: info?.deploymentVersion?.buildId ?? null, behavior: info?.behavior ?? null }
}

const readCatalog = async (t: Test, app: App) =>
  (await call(t, app, { method: 'GET', url: `/workflow/catalog/${catalog}`, route: '/workflow/catalog/{catalogId}' })).body as CatalogResponse

const signalAndWait = async (app: App, workflowId: string) => {
  const handle = app.engine.client.workflow.getHandle(workflowId)
  await handle.signal('go')
  return await handle.result() as { version: string, steps?: string[] }
}

t.test('pinned runs finish on the version that started them, new runs go to the current one, autoUpgrade runs move', async (t) => {
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  const v1 = await startVersion(t, 'v1')
  t.ok(await makeCurrent(app, 'v1'), 'v1 is current')

  const v1Catalog = await eventually(async () => await readCatalog(t, app), (c) => c.versions?.current?.buildId === 'v1')
  t.same(v1Catalog.deployment, { deploymentName: catalog, buildId: 'v1' }, 'the catalog shows v1\'s entries')
  t.same(v1Catalog.versions?.current, { deploymentName: catalog, buildId: 'v1' })
  t.equal(v1Catalog.versions?.ramping, null)
  t.match(Object.fromEntries(v1Catalog.workflows.map((w) => [w.name, w.versioning])), { gated: 'pinned', moving: 'autoUpgrade' }, 'each entry says its mode')

  const pinnedOld = await start(t, app, 'gated', {})
  const movingOld = await start(t, app, 'moving', {})
  // Flowport's own delivery workflow (autoUpgrade) for a run that outlives v1's workers.
  const hooks = await receiver(t)
  const secret = newSecret()
  const started = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'moving', input: {}, webhook: { url: hooks.url('/moved'), secret } } })
  t.equal(started.status, 200)
  const delivered = started.body as { workflowId: string, runId: string }
  for (const run of [pinnedOld, movingOld, delivered]) t.ok(await firstTaskCompleted(app, run.workflowId), `${run.workflowId} ran its first task`)
  t.same(await versioningOf(app, pinnedOld.workflowId), { buildId: 'v1', behavior: PINNED }, 'gated runs on v1, pinned')
  t.same(await versioningOf(app, movingOld.workflowId), { buildId: 'v1', behavior: AUTO_UPGRADE }, 'moving runs on v1, autoUpgrade')

  await startVersion(t, 'v2')
  const beside = await readCatalog(t, app)
  t.same(beside.deployment, { deploymentName: catalog, buildId: 'v1' }, 'a v2 worker that is not current leaves the current version\'s entries shown')
  t.match(beside.workflows.find((w) => w.name === 'gated')?.description, /first, wait for go, second/)

  t.ok(await makeCurrent(app, 'v2'), 'v2 is current')
  const v2Catalog = await eventually(async () => await readCatalog(t, app), (c) => c.deployment?.buildId === 'v2')
  t.same(v2Catalog.deployment, { deploymentName: catalog, buildId: 'v2' }, 'the catalog now shows v2\'s entries')
  t.match(v2Catalog.workflows.find((w) => w.name === 'gated')?.description, /second, wait for go, first/)

  const pinnedNew = await start(t, app, 'gated', {})
  t.ok(await firstTaskCompleted(app, pinnedNew.workflowId))
  t.same(await versioningOf(app, pinnedNew.workflowId), { buildId: 'v2', behavior: PINNED }, 'a new run goes to v2')

  const serving = await eventually(async () => await readCatalog(t, app), (c) => {
    const v = Object.fromEntries((c.versions?.serving ?? []).map((s) => [s.version.buildId, s.openRuns]))
    return v.v1 !== undefined && v.v2 !== undefined
  })
  t.same(serving.versions?.current, { deploymentName: catalog, buildId: 'v2' })
  const open = Object.fromEntries((serving.versions?.serving ?? []).map((s) => [s.version.buildId, s.openRuns]))
  t.ok(open.v1 >= 1, `v1 still serves open runs (${open.v1})`)
  t.ok(open.v2 >= 1, `v2 serves the new run (${open.v2})`)

  t.same(await signalAndWait(app, pinnedOld.workflowId), { version: 'v1', steps: ['first', 'second'] }, 'the pinned v1 run finished on v1\'s code')
  t.same(await signalAndWait(app, pinnedNew.workflowId), { version: 'v2', steps: ['second', 'first'] }, 'the new run ran v2\'s code')
  await v1.kill()
  t.same(await signalAndWait(app, movingOld.workflowId), { version: 'v2' }, 'with v1\'s workers gone, the autoUpgrade run moved to v2 and finished there')
  t.same(await signalAndWait(app, delivered.workflowId), { version: 'v2' })
  const [delivery] = await hooks.until('/moved', 1)
  t.match(verified(t, secret, delivery), { status: 'completed', output: { version: 'v2' } }, 'its webhook, whose delivery started on v1, was delivered by v2')
  const published = await app.engine.client.workflow.getHandle(catalogWorkflowId(catalog)).query<Catalog>('get')
  t.same(published.deployment, { deploymentName: catalog, buildId: 'v2' }, 'the catalog workflow answers on v2 with v1\'s workers gone')
  t.equal((await versioningOf(app, pinnedOld.workflowId)).buildId, 'v1', 'the engine records v1 for the pinned run')
  t.equal((await versioningOf(app, movingOld.workflowId)).buildId, 'v2', 'and v2 for the one that moved')
})
