/**
 * Moving a run to another worker deployment version (PUT/DELETE …/versioning, `flowport deploy
 * move`), routing new runs back to unversioned workers (`{unversioned: true}`, `flowport deploy
 * current --unversioned`), and the deploy commands' If-Match, against the real engine: versioned
 * workers v1 and v2 of test/fixtures/rollout (each run answers the code version that ran it), and
 * later an unversioned worker of v3's code, on a catalog of this file's own. docs/deploys.md.
 */
import t, { type Test } from 'tap'
import { createServer, request as httpRequest } from 'node:http'
import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import type { App } from '../app.js'
import type { CatalogResponse } from '../schemas/catalog.js'
import type { Deployment } from '../schemas/deployments.js'
import type { RunVersioning } from '../schemas/run-versioning.js'
import type { WorkflowStatus } from '../schemas/workflow.js'
import { build } from './helpers/app.js'
import { bearer, keysFile } from './helpers/keys.js'
import { call, eventually, firstTaskCompleted, newId, waitClosed } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'
import { flowport } from './helpers/flowport-cli.js'

const catalog = `override-${randomUUID()}`
const deployment = `/deployments/${catalog}`
const deploymentRoute = '/deployments/{deploymentName}'
const { keys, file } = keysFile(t, [
  { id: 'operator', scopes: ['read', 'run', 'interact', 'control'] },
  { id: 'runner', scopes: ['read', 'run', 'interact'] }
])
const operator = bearer(keys.operator!)
const v = (buildId: string) => ({ deploymentName: catalog, buildId })

const worker = (t: Test, code: string, versioned = true) => spawnWorker(t, {
  SERVICE_CATALOG_ID: catalog,
  SERVICE_WORKFLOWS_DIR: resolve(`test/fixtures/rollout/${code}`),
  ...(versioned ? { SERVICE_WORKER_VERSIONING: 'true', SERVICE_WORKER_BUILD_ID: code } : {})
}, process.cwd())

async function held (t: Test, app: App) {
  const res = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', headers: operator, payload: { workflowName: 'rollout', input: { hold: true }, workflowId: newId('held') } })
  t.equal(res.status, 200, 'a held run started')
  const run = res.body as { workflowId: string, runId: string }
  t.ok(await firstTaskCompleted(app, run.workflowId, run.runId), 'its first workflow task completed')
  return run
}

const status = async (t: Test, app: App, run: { workflowId: string, runId: string }) =>
  (await call(t, app, { method: 'GET', url: `/workflow/${run.workflowId}/runs/${run.runId}/status`, route: '/workflow/{id}/runs/{rid}/status', headers: operator })).body as WorkflowStatus

const setVersioning = async (t: Test, app: App, workflowId: string, payload: unknown, headers: Record<string, string> = operator) =>
  await call(t, app, { method: 'PUT', url: `/workflow/${workflowId}/versioning`, route: '/workflow/{id}/versioning', headers, payload })

async function finish (t: Test, app: App, run: { workflowId: string, runId: string }): Promise<unknown> {
  await app.engine.client.workflow.getHandle(run.workflowId, run.runId).signal('finish', {})
  t.equal(await waitClosed(app, run.workflowId, run.runId), 'COMPLETED')
  return await app.engine.client.workflow.getHandle(run.workflowId, run.runId).result()
}

t.test('a run moved to another version, auto-upgrade, the override removed; back to unversioned workers; guarded deploy commands', async (t) => {
  const logs: string[] = []
  const app = await build(t, { SERVICE_CATALOG_ID: catalog, SERVICE_API_KEYS_FILE: file }, logs)
  const v1 = worker(t, 'v1')
  await v1.waitFor('Worker polling')
  // The engine registers a version with its first poll, a moment after the worker says it polls.
  const made = await eventually(async () => await call(t, app, { method: 'PUT', url: `${deployment}/current`, route: `${deploymentRoute}/current`, headers: operator, payload: { buildId: 'v1' } }),
    (res) => res.status === 200)
  t.equal(made.status, 200, 'v1 is current')
  const v2 = worker(t, 'v2')
  await v2.waitFor('Worker polling')
  const address = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const cliEnv = () => ({ FLOWPORT_URL: address, FLOWPORT_TOKEN: keys.operator!, SERVICE_CATALOG_ID: catalog })
  const read = async () => (await call(t, app, { method: 'GET', url: deployment, route: deploymentRoute, headers: operator })).body as Deployment
  await eventually(read, (d) => (d.versions.find((x) => x.version.buildId === 'v2')?.pollers ?? 0) > 0)

  await t.test('the catalog shows each workflow\'s versions: the versions whose workers poll it, with their state', async (t) => {
    const versionsOf = async () => ((await call(t, app, { method: 'GET', url: `/workflow/catalog/${catalog}`, route: '/workflow/catalog/{catalogId}', headers: operator })).body as CatalogResponse).versions
    const shown = await eventually(versionsOf, (versions) => versions?.polling.length === 2)
    // The fixture's workers offer the shared example workflows too: `rollout` is the one that matters here.
    t.same(shown?.polling.map(({ version, state, rampPercentage, workflows }) => ({ version, state, rampPercentage, rollout: workflows?.includes('rollout') })), [
      { version: v('v2'), state: 'inactive', rampPercentage: null, rollout: true },
      { version: v('v1'), state: 'current', rampPercentage: null, rollout: true }
    ], 'both versions poll, newest first, each with the workflows its code offers')
    t.ok(shown?.polling.every((p) => p.pollers > 0), 'with their pollers')
    const listed = await flowport(['catalog', '--catalog', catalog], { env: cliEnv() })
    t.equal(listed.code, 0, listed.stderr)
    t.match(listed.stdout, /workflow\s+versions\s+aliases/, 'a versions column')
    t.match(listed.stdout, /rollout\s+v2 \(inactive\), v1 \(current\)/, 'flowport catalog shows each workflow\'s versions and their state')
    t.match(listed.stderr, `Catalog ${catalog}: worker deployment ${catalog}, current v1`)
  })

  await t.test('PUT …/versioning pinned: a run on v1 moves to v2 and finishes on its code; status shows the override', async (t) => {
    const run = await held(t, app)
    const before = await status(t, app, run)
    t.match(before, { version: v('v1'), versioning: 'pinned', versioningOverride: null }, 'on v1, pinned by its workers, no override')

    const moved = await setVersioning(t, app, run.workflowId, { behavior: 'pinned', version: v('v2') })
    t.equal(moved.status, 200)
    t.same(moved.body, { workflowId: run.workflowId, runId: run.runId, versioningOverride: { behavior: 'pinned', version: v('v2') } } satisfies RunVersioning)
    t.match(await status(t, app, run), { version: v('v2'), versioning: 'pinned', versioningOverride: { behavior: 'pinned', version: v('v2') } }, 'the status shows the override')
    t.same(await finish(t, app, run), { code: 'v2' }, 'v2\'s code ran the rest of the run')

    const closed = await call(t, app, { method: 'PUT', url: `/workflow/${run.workflowId}/runs/${run.runId}/versioning`, route: '/workflow/{id}/runs/{rid}/versioning', headers: operator, payload: { behavior: 'autoUpgrade' } })
    t.equal(closed.status, 409, 'a closed run: 409')
    t.match(closed.body, { error: 'WorkflowAlreadyClosedError', workflowId: run.workflowId, runId: run.runId })
    const closedDelete = await call(t, app, { method: 'DELETE', url: `/workflow/${run.workflowId}/versioning`, route: '/workflow/{id}/versioning', headers: operator })
    t.equal(closedDelete.status, 409, 'DELETE on a closed run: 409')

    const audit = await eventually(async () => logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.audit === true && l.workflowId === run.workflowId && l.action === 'setWorkflowVersioning'),
      (lines) => lines.length > 0)
    t.match(audit[0], { keyId: 'operator', runId: run.runId, versioningOverride: { behavior: 'pinned', version: v('v2') }, outcome: '200' }, 'audited with the override it left')
  })

  await t.test('autoUpgrade, then DELETE removes the override', async (t) => {
    const run = await held(t, app)
    const upgraded = await setVersioning(t, app, run.workflowId, { behavior: 'autoUpgrade' })
    t.equal(upgraded.status, 200)
    t.same((upgraded.body as RunVersioning).versioningOverride, { behavior: 'autoUpgrade', version: null })
    t.match(await status(t, app, run), { versioning: 'autoUpgrade', versioningOverride: { behavior: 'autoUpgrade', version: null } })
    const cleared = await call(t, app, { method: 'DELETE', url: `/workflow/${run.workflowId}/runs/${run.runId}/versioning`, route: '/workflow/{id}/runs/{rid}/versioning', headers: operator })
    t.equal(cleared.status, 200)
    t.same(cleared.body, { workflowId: run.workflowId, runId: run.runId, versioningOverride: null })
    t.match(await status(t, app, run), { version: v('v1'), versioning: 'pinned', versioningOverride: null }, 'it follows what its workers report again')
    t.same(await finish(t, app, run), { code: 'v1' })
  })

  await t.test('clear errors, nothing changed', async (t) => {
    const run = await held(t, app)
    t.teardown(async () => { await app.engine.client.workflow.getHandle(run.workflowId).terminate('test over').catch(() => undefined) })
    const unknownRun = await setVersioning(t, app, `no-such-run-${randomUUID()}`, { behavior: 'pinned', version: v('v2') })
    t.equal(unknownRun.status, 404)
    t.match(unknownRun.body, { error: 'WorkflowNotFoundError' })
    const unknownBuild = await setVersioning(t, app, run.workflowId, { behavior: 'pinned', version: v('v9') })
    t.equal(unknownBuild.status, 400, 'a build id the deployment does not have: 400')
    t.match(unknownBuild.body, { error: 'ValidationError', issues: [{ path: '/version', in: 'body', message: /has no version v9/ }] })
    const unknownDeployment = await setVersioning(t, app, run.workflowId, { behavior: 'pinned', version: { deploymentName: `nowhere-${randomUUID()}`, buildId: 'v1' } })
    t.equal(unknownDeployment.status, 400, 'a deployment the engine does not know: 400')
    t.match(unknownDeployment.body, { error: 'ValidationError', issues: [{ path: '/version', message: /no versioned worker of deployment nowhere-/ }] })
    const noVersion = await setVersioning(t, app, run.workflowId, { behavior: 'pinned' })
    t.equal(noVersion.status, 400, 'pinned without a version: 400')
    const badBehavior = await setVersioning(t, app, run.workflowId, { behavior: 'oneTime', version: v('v2') })
    t.equal(badBehavior.status, 400, 'an unknown behaviour: 400')
    const otherRun = await setVersioning(t, app, run.workflowId, { behavior: 'autoUpgrade' }, { ...operator, 'if-match': '"another-run"' })
    t.equal(otherRun.status, 412, 'If-Match naming another run: 412')
    const runner = await setVersioning(t, app, run.workflowId, { behavior: 'autoUpgrade' }, bearer(keys.runner!))
    t.equal(runner.status, 403, 'a key without scope control: 403')
    t.match(runner.body, { error: 'ForbiddenError', message: 'Key runner lacks scope control' })
    t.match(await status(t, app, run), { version: v('v1'), versioningOverride: null }, 'nothing changed')
  })

  const env = cliEnv()

  await t.test('flowport deploy move', async (t) => {
    const run = await held(t, app)
    const moved = await flowport(['deploy', 'move', run.workflowId, '--to', 'v2'], { env })
    t.equal(moved.code, 0, moved.stderr)
    t.match(moved.stderr, `Workflow ${run.workflowId} (run ${run.runId}): pinned to version ${catalog}:v2.`)
    t.match(await status(t, app, run), { version: v('v2'), versioningOverride: { behavior: 'pinned', version: v('v2') } })
    const upgrade = await flowport(['deploy', 'move', run.workflowId, '--auto-upgrade', '--json'], { env })
    t.equal(upgrade.code, 0, upgrade.stderr)
    t.same(JSON.parse(upgrade.stdout), { workflowId: run.workflowId, runId: run.runId, versioningOverride: { behavior: 'autoUpgrade', version: null } })
    const cleared = await flowport(['deploy', 'move', run.workflowId, '--clear', '--run', run.runId], { env })
    t.equal(cleared.code, 0, cleared.stderr)
    t.match(cleared.stderr, 'no versioning override')
    const pinnedBack = await flowport(['deploy', 'move', run.workflowId, '--to', `${catalog}:v1`], { env: { ...env, SERVICE_CATALOG_ID: 'elsewhere' } })
    t.equal(pinnedBack.code, 0, `<deployment>:<buildId> names another deployment than the default: ${pinnedBack.stderr}`)
    const nowhere = await flowport(['deploy', 'move', run.workflowId], { env })
    t.equal(nowhere.code, 2, 'no target: a usage error')
    t.match(nowhere.stderr, '--to <buildId>, --auto-upgrade or --clear')
    const unknown = await flowport(['deploy', 'move', run.workflowId, '--to', 'v9'], { env })
    t.equal(unknown.code, 2, 'an unknown version: exit 2')
    t.match(unknown.stderr, /ValidationError: .*\/version names no version the engine knows/)
    t.same(await finish(t, app, run), { code: 'v1' }, 'pinned back to v1, it finished there')
  })

  await t.test('the deploy commands send the deployment\'s ETag as If-Match; a change in between is a 412, exit 2', async (t) => {
    // A proxy in front of the API records what the command sends.
    const seen: Array<{ method: string, url: string, ifMatch: string | undefined }> = []
    const proxy = createServer((req, res) => {
      seen.push({ method: req.method!, url: req.url!, ifMatch: req.headers['if-match'] })
      const upstream = httpRequest(`${address}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers)
        answer.pipe(res)
      })
      req.pipe(upstream)
    })
    await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done))
    t.teardown(() => { proxy.close() })
    const { port } = proxy.address() as { port: number }
    const ramped = await flowport(['deploy', 'ramp', 'v2', '10'], { env: { ...env, FLOWPORT_URL: `http://127.0.0.1:${port}` } })
    t.equal(ramped.code, 0, ramped.stderr)
    const [get, put] = seen
    t.match(get, { method: 'GET', url: deployment })
    t.match(put, { method: 'PUT', url: `${deployment}/ramp`, ifMatch: /^"[A-Za-z0-9_-]+"$/ }, 'the change carries the ETag it read')

    const listed = await flowport(['deploy', 'list', catalog], { env })
    const [, etag] = /ETag ("[^"]+")/.exec(listed.stderr) ?? []
    t.ok(etag, 'deploy list prints the ETag')
    // Two operators change the deployment from the same read: one lands, the other is told.
    const both = await Promise.all([20, 30].map(async (p) => await flowport(['deploy', 'ramp', 'v2', String(p), '--if-match', etag!], { env })))
    t.same(both.map((r) => r.code).sort(), [0, 2], 'one change lands, the other exits 2')
    const lost = both.find((r) => r.code === 2)!
    t.match(lost.stderr, new RegExp(`PreconditionFailedError: worker deployment ${catalog} was changed by someone else since that ETag was read: nothing was changed\\. It is now: current v1, ramping v2 (20|30)%`))
    const stale = await flowport(['deploy', 'stop-ramp', '--if-match', etag!], { env })
    t.equal(stale.code, 2, 'a stale ETag: exit 2')
    t.match(stale.stderr, 'nothing was changed')
    t.not((await read()).ramping, null, 'the ramp is still there')
    const stopped = await flowport(['deploy', 'stop-ramp'], { env })
    t.equal(stopped.code, 0, stopped.stderr)
  })

  await t.test('current --unversioned: new runs go to unversioned workers again, only once one polls (or when told)', async (t) => {
    const refused = await call(t, app, { method: 'PUT', url: `${deployment}/current`, route: `${deploymentRoute}/current`, headers: operator, payload: { unversioned: true } })
    t.equal(refused.status, 409, 'no unversioned worker polls the deployment\'s task queue: 409')
    t.match(refused.body, { error: 'DeploymentConflictError', message: /No unversioned worker polls the task queues of worker deployment .*allowNoPollers: true/ })
    t.same((await read()).current, v('v1'), 'nothing changed')
    const bad = await call(t, app, { method: 'PUT', url: `${deployment}/current`, route: `${deploymentRoute}/current`, headers: operator, payload: { unversioned: true, buildId: 'v1' } })
    t.equal(bad.status, 400, 'a version and unversioned at once: 400')

    const plain = worker(t, 'v3', false)
    await plain.waitFor('Worker polling')
    const usage = await flowport(['deploy', 'current'], { env })
    t.equal(usage.code, 2, 'neither a build id nor --unversioned: exit 2')
    const back = await eventually(async () => await flowport(['deploy', 'current', '--unversioned'], { env }), (r) => r.code === 0)
    t.equal(back.code, 0, back.stderr)
    t.match(back.stderr, `No version of ${catalog} is current: new runs go to unversioned workers.`)
    t.match(back.stderr, `Deployment ${catalog}: current unversioned`)
    const d = await read()
    t.equal(d.current, null, 'no version is current')
    t.equal(d.lastModifiedBy, 'flowport:operator')
    const ran = await call(t, app, { method: 'POST', url: '/workflow/run', route: '/workflow/run', headers: operator, payload: { workflowName: 'rollout', input: {} } })
    t.equal(ran.status, 200)
    t.same((ran.body as { output: unknown }).output, { code: 'v3' }, 'a new run went to the unversioned worker')
    const again = await flowport(['deploy', 'current', 'v1'], { env })
    t.equal(again.code, 0, again.stderr)
    t.same((await read()).current, v('v1'), 'and versioned again')
  })
})
