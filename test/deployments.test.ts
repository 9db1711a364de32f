/**
 * Rollout through the API and `flowport deploy` (docs/deploys.md), against a real engine with two
 * versioned workers of one workflow (test/fixtures/rollout/{v1,v2}): v1 current → v2 ramped to 30%
 * (about 30% of new runs go to it) → v2 current, v1 draining while a run pinned to it is open, drained
 * once it closed → rollback makes v1 current again. Each change carries the key's identity; reads
 * need scope `read`, changes `control`.
 *
 * The test runs an engine of its own: the engine refreshes a draining version's status every
 * `matching.wv.VersionDrainageStatusRefreshInterval` (3 min by default), after a grace period
 * `matching.wv.VersionDrainageStatusVisibilityGracePeriod` (3 min) for visibility to catch up;
 * both are set to 1 s here so that `drained` comes within the test, and the shared engine of the
 * other tests keeps the engine's defaults.
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import { startEngine } from '../cli/engine.js'
import type { App } from '../app.js'
import type { Deployment, DeploymentList } from '../schemas/deployments.js'
import { build } from './helpers/app.js'
import { bearer, keysFile } from './helpers/keys.js'
import { call, eventually, firstTaskCompleted, waitClosed } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'
import { flowport } from './helpers/flowport-cli.js'

const DRAINAGE = { 'matching.wv.VersionDrainageStatusRefreshInterval': '1s', 'matching.wv.VersionDrainageStatusVisibilityGracePeriod': '1s' }
const RUNS = 100

const engine = await startEngine({ dynamicConfig: DRAINAGE })
t.teardown(async () => { await engine.stop() })
const catalog = `rollout-${randomUUID()}`
const route = '/deployments/{deploymentName}'
const url = `/deployments/${catalog}`
const { keys, file } = keysFile(t, [
  { id: 'operator', scopes: ['read', 'run', 'interact', 'control'] },
  { id: 'viewer', scopes: ['read', 'run'] },
  { id: 'starter', scopes: ['run'] }
])
const operator = bearer(keys.operator!)

const versioned = (buildId: string) => spawnWorker(t, {
  TEMPORAL_ADDRESS: engine.address,
  SERVICE_CATALOG_ID: catalog,
  SERVICE_WORKFLOWS_DIR: resolve(`test/fixtures/rollout/${buildId}`),
  SERVICE_WORKER_VERSIONING: 'true',
  SERVICE_WORKER_BUILD_ID: buildId
}, process.cwd())

async function show (t: Test, app: App): Promise<Deployment> {
  const res = await call(t, app, { method: 'GET', url, route, headers: operator })
  t.equal(res.status, 200)
  return res.body as Deployment
}

const stateOf = (d: Deployment, buildId: string) => d.versions.find((v) => v.version.buildId === buildId)

/** Starts a run of `rollout` through the API as the operator. */
async function startRun (t: Test, app: App, input: { hold?: boolean } = {}) {
  const res = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', headers: operator, payload: { workflowName: 'rollout', input } })
  t.equal(res.status, 200, 'started')
  return res.body as { workflowId: string, runId: string }
}

/** The build id of the version the engine records a run on (null: unversioned). */
async function versionOfRun (app: App, workflowId: string, runId: string): Promise<string | null> {
  const { raw } = await app.engine.client.workflow.getHandle(workflowId, runId).describe()
  return raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId ?? null
}

t.test('list → current v1 → ramp v2 30% → current v2 → v1 drained → rollback, with the key\'s identity', async (t) => {
  const app = await build(t, { TEMPORAL_ADDRESS: engine.address, SERVICE_CATALOG_ID: catalog, SERVICE_API_KEYS_FILE: file })
  // v1 first: a worker's start publishes its catalog through the catalog workflow, which follows the
  // current version (autoUpgrade), so a second version's worker finishes starting only once some
  // version is current (worker/README.md). Its pollers, and so the engine's record of v2, come before.
  const v1 = versioned('v1')
  await v1.waitFor('Worker polling')
  const v2 = versioned('v2')
  t.match(v1.output(), /"deploymentName":"rollout-[^"]+","buildId":"v1"/, 'the worker polls as version v1')

  // The engine registers a version with its first poll, a moment after the worker says it polls;
  // v2's worker is still bundling its workflows then, which takes a minute on a loaded machine.
  const initial = await eventually(async () => await show(t, app), (d) => d.versions.length === 2, 480)
  t.same(initial.versions.map((v) => [v.version, v.state]).sort((a, b) => (a[0] as { buildId: string }).buildId.localeCompare((b[0] as { buildId: string }).buildId)), [
    [{ deploymentName: catalog, buildId: 'v1' }, 'inactive'], [{ deploymentName: catalog, buildId: 'v2' }, 'inactive']
  ], 'both versions, neither given runs yet')
  t.equal(initial.current, null, 'new runs go to unversioned workers')
  t.equal(initial.ramping, null)

  const list = await call(t, app, { method: 'GET', url: '/deployments', route: '/deployments', headers: operator })
  t.equal(list.status, 200)
  t.match((list.body as DeploymentList).deployments.find((d) => d.deploymentName === catalog), { current: null, ramping: null, latest: { deploymentName: catalog } }, 'listed')

  // With no version current, the engine would hold a new run for unversioned workers, and none polls.
  const start = async (body: Record<string, unknown> = {}) =>
    await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', headers: operator, payload: { workflowName: 'rollout', input: {}, ...body } })
  const unroutable = await start()
  t.equal(unroutable.status, 503, 'a start with no version current is refused')
  t.match(unroutable.body, { error: 'CatalogNotAvailableError', message: new RegExp(`no version of worker deployment ${catalog} is current.*flowport deploy current <buildId>`) })
  const pinned = await start({ version: { deploymentName: catalog, buildId: 'v1' } })
  t.equal(pinned.status, 200, 'a start that names its version goes to it')
  t.equal(await waitClosed(app, (pinned.body as { workflowId: string }).workflowId), 'COMPLETED')

  await t.test('clear errors', async (t) => {
    const unknown = await call(t, app, { method: 'GET', url: '/deployments/no-such-deployment', route, headers: operator })
    t.equal(unknown.status, 404)
    t.match(unknown.body, { error: 'DeploymentNotFoundError', message: /no-such-deployment/ })
    // Names the engine refuses (its rules: a `.` or `:`, a leading `__`, over 480 bytes) are the client's 400, not a 409 or a 500.
    for (const [name, reason] of [['a.b', /must hold no `.` or `:`/], ['a:b', /must hold no `.` or `:`/], ['__flowport', /not start with `__`/], ['x'.repeat(121), /more than 120 characters/]] as const) {
      const refused = await call(t, app, { method: 'GET', url: `/deployments/${name}`, route, headers: operator })
      t.equal(refused.status, 400, `${name.slice(0, 12)}: 400`)
      t.match(refused.body, { error: 'ValidationError', issues: [{ in: 'params', path: '/deploymentName', message: reason }] })
    }
    const noVersion = await call(t, app, { method: 'PUT', url: `${url}/current`, route: `${route}/current`, headers: operator, payload: { buildId: 'v9' } })
    t.equal(noVersion.status, 404)
    t.match(noVersion.body, { error: 'DeploymentVersionNotFoundError', message: /has no version v9/ })
    for (const percentage of [0, -5, 101]) {
      const bad = await call(t, app, { method: 'PUT', url: `${url}/ramp`, route: `${route}/ramp`, headers: operator, payload: { buildId: 'v2', percentage } })
      t.equal(bad.status, 400, `ramp ${percentage}%: 400`)
      t.match(bad.body, { error: 'ValidationError', issues: [{ path: '/percentage', in: 'body' }] })
    }
    const nothingBefore = await call(t, app, { method: 'POST', url: `${url}/rollback`, route: `${route}/rollback`, headers: operator })
    t.equal(nothingBefore.status, 409, 'no version was current before: nothing to roll back to')
    t.match(nothingBefore.body, { error: 'DeploymentConflictError', message: /no version that was current before/ })
  })

  await t.test('scope read to read, control to change', async (t) => {
    const viewer = bearer(keys.viewer!)
    for (const path of ['/deployments', url]) {
      const res = await app.inject({ method: 'GET', url: path, headers: viewer })
      t.equal(res.statusCode, 200, `GET ${path}: scope read`)
    }
    const nobody = bearer(keys.starter!)
    t.same((await app.inject({ method: 'GET', url, headers: nobody })).json(), { error: 'ForbiddenError', message: 'Key starter lacks scope read' }, 'a key without read')
    for (const [method, path, payload] of [['PUT', `${url}/current`, { buildId: 'v1' }],
      ['PUT', `${url}/ramp`, { buildId: 'v2', percentage: 30 }], ['DELETE', `${url}/ramp`, undefined], ['POST', `${url}/rollback`, undefined]] as const) {
      const res = await app.inject({ method, url: path, headers: viewer, ...(payload === undefined ? {} : { payload }) })
      t.equal(res.statusCode, 403, `${method} ${path}: 403 without control`)
      t.same(res.json(), { error: 'ForbiddenError', message: 'Key viewer lacks scope control' })
    }
    t.equal((await show(t, app)).current, null, 'nothing changed')
  })

  const current1 = await call(t, app, { method: 'PUT', url: `${url}/current`, route: `${route}/current`, headers: operator, payload: { buildId: 'v1' } })
  t.equal(current1.status, 200)
  const afterCurrent1 = current1.body as Deployment
  t.same(afterCurrent1.current, { deploymentName: catalog, buildId: 'v1' }, 'v1 is current')
  t.equal(afterCurrent1.lastModifiedBy, 'flowport:operator', 'the engine records the key\'s identity')
  t.match(stateOf(afterCurrent1, 'v1'), { state: 'current', since: String, lastCurrentAt: String })
  await v2.waitFor('Worker polling')

  // A run that stays open on v1 (pinned: the version that started it).
  const held = await startRun(t, app, { hold: true })
  t.ok(await firstTaskCompleted(app, held.workflowId, held.runId))
  t.equal(await versionOfRun(app, held.workflowId, held.runId), 'v1', 'a new run goes to the current version')

  const rampCurrent = await call(t, app, { method: 'PUT', url: `${url}/ramp`, route: `${route}/ramp`, headers: operator, payload: { buildId: 'v1', percentage: 30 } })
  t.equal(rampCurrent.status, 409, 'ramping the current version: the engine\'s refusal is a 409')
  t.match(rampCurrent.body, { error: 'DeploymentConflictError', message: /already current/ })

  const ramp = await call(t, app, { method: 'PUT', url: `${url}/ramp`, route: `${route}/ramp`, headers: operator, payload: { buildId: 'v2', percentage: 30 } })
  t.equal(ramp.status, 200)
  const ramping = ramp.body as Deployment
  t.match(ramping.ramping, { version: { deploymentName: catalog, buildId: 'v2' }, percentage: 30, since: String })
  t.match(stateOf(ramping, 'v2'), { state: 'ramping', rampPercentage: 30, since: String })
  t.match(stateOf(ramping, 'v1'), { state: 'current', rampPercentage: null })

  // About 30% of new runs go to v2: the engine picks by workflow id, so a wide band, never timing.
  const runs = []
  for (let i = 0; i < RUNS; i += 10) runs.push(...await Promise.all(Array.from({ length: 10 }, async () => await startRun(t, app))))
  const versions = await Promise.all(runs.map(async ({ workflowId, runId }) => {
    t.equal(await waitClosed(app, workflowId, runId), 'COMPLETED')
    const output = await app.engine.client.workflow.getHandle(workflowId, runId).result() as { code: string }
    const version = await versionOfRun(app, workflowId, runId)
    t.equal(output.code, version, 'the run ran the code of the version the engine records')
    return version
  }))
  const toV2 = versions.filter((v) => v === 'v2').length
  t.equal(versions.filter((v) => v === 'v1').length + toV2, RUNS, 'every run went to v1 or v2')
  t.ok(toV2 >= 15 && toV2 <= 45, `${toV2} of ${RUNS} runs went to v2 (ramped to 30%)`)

  const stopRamp = await call(t, app, { method: 'DELETE', url: `${url}/ramp`, route: `${route}/ramp`, headers: operator })
  t.equal(stopRamp.status, 200)
  t.equal((stopRamp.body as Deployment).ramping, null, 'the ramp stopped')

  const current2 = await call(t, app, { method: 'PUT', url: `${url}/current`, route: `${route}/current`, headers: operator, payload: { buildId: 'v2' } })
  t.equal(current2.status, 200)
  t.same((current2.body as Deployment).current, { deploymentName: catalog, buildId: 'v2' }, 'v2 is current')
  const draining = await eventually(async () => await show(t, app), (d) => stateOf(d, 'v1')?.state === 'draining' && stateOf(d, 'v1')?.openRuns === 1)
  t.match(stateOf(draining, 'v1'), { state: 'draining', since: String, openRuns: 1 }, 'v1 drains: its held run is open and counted')
  const next = await startRun(t, app)
  t.equal(await waitClosed(app, next.workflowId, next.runId), 'COMPLETED')
  t.equal(await versionOfRun(app, next.workflowId, next.runId), 'v2', 'new runs go to v2')

  await app.engine.client.workflow.getHandle(held.workflowId, held.runId).signal('finish', {})
  t.equal(await waitClosed(app, held.workflowId, held.runId), 'COMPLETED')
  t.same(await app.engine.client.workflow.getHandle(held.workflowId, held.runId).result(), { code: 'v1' }, 'the pinned run finished on v1')
  const drained = await eventually(async () => await show(t, app), (d) => stateOf(d, 'v1')?.state === 'drained', 120)
  t.match(stateOf(drained, 'v1'), { state: 'drained', since: String, drainageCheckedAt: String, openRuns: 0 }, 'v1 is drained once its runs closed: its workers can stop')

  const rollback = await call(t, app, { method: 'POST', url: `${url}/rollback`, route: `${route}/rollback`, headers: operator })
  t.equal(rollback.status, 200)
  const rolledBack = rollback.body as Deployment
  t.same(rolledBack.current, { deploymentName: catalog, buildId: 'v1' }, 'rollback: the version current before v2 is current again')
  t.equal(rolledBack.lastModifiedBy, 'flowport:operator')
  t.not(stateOf(rolledBack, 'v2')?.state, 'current')

  await t.test('flowport deploy', async (t) => {
    const address = await app.listen({ port: 0, host: '127.0.0.1' })
    const env = { FLOWPORT_URL: address, FLOWPORT_TOKEN: keys.operator!, SERVICE_CATALOG_ID: catalog }
    const listed = await flowport(['deploy', 'list'], { env })
    t.equal(listed.code, 0, listed.stderr)
    t.match(listed.stdout, new RegExp(`${catalog}\\s+v1\\s+-\\s+v[12]`), 'the deployment with its current, ramping and latest version')

    const current = await flowport(['deploy', 'current', 'v2'], { env })
    t.equal(current.code, 0, current.stderr)
    t.match(current.stderr, `Version v2 of ${catalog} is current.`)
    t.match(current.stdout, /v2\s+current\s+\S+\s+\d+/)

    const ramped = await flowport(['deploy', 'ramp', 'v1', '50', '--deployment', catalog, '--json'], { env: { ...env, SERVICE_CATALOG_ID: 'elsewhere' } })
    t.equal(ramped.code, 0, ramped.stderr)
    t.match(JSON.parse(ramped.stdout), { deploymentName: catalog, ramping: { version: { buildId: 'v1' }, percentage: 50 }, lastModifiedBy: 'flowport:operator' }, '--deployment names it; --json prints the deployment')

    const shown = await flowport(['deploy', 'list', catalog], { env })
    t.equal(shown.code, 0, shown.stderr)
    const byOption = await flowport(['deploy', 'list', '--deployment', catalog], { env: { ...env, SERVICE_CATALOG_ID: 'elsewhere' } })
    t.equal(byOption.code, 0, byOption.stderr)
    t.equal(byOption.stdout, shown.stdout, 'list takes --deployment as the change commands do')
    t.match(shown.stderr, `Deployment ${catalog}: current v2; ramping v1 50%; last changed by flowport:operator`)
    t.match(shown.stdout, /v1\s+ramping 50%/)

    const stopped = await flowport(['deploy', 'stop-ramp'], { env })
    t.equal(stopped.code, 0, stopped.stderr)
    t.match(stopped.stderr, `No version of ${catalog} is ramping.`)

    const rolled = await flowport(['deploy', 'rollback'], { env })
    t.equal(rolled.code, 0, rolled.stderr)
    t.match(rolled.stderr, `Rolled back: version v1 of ${catalog} is current.`)

    const help = await flowport(['deploy', '--help'])
    for (const command of ['list', 'current', 'ramp', 'stop-ramp', 'rollback']) t.match(help.stdout, new RegExp(`\\n {2}${command} `), `deploy ${command} in the help`)
    t.match((await flowport(['help'])).stdout, /\n {2}deploy /, 'flowport help lists deploy')

    const badPercent = await flowport(['deploy', 'ramp', 'v2', '0'], { env })
    t.equal(badPercent.code, 2, 'a percentage out of range is a usage error')
    const unknown = await flowport(['deploy', 'current', 'v9'], { env })
    t.equal(unknown.code, 2, 'an unknown version: exit 2')
    t.match(unknown.stderr, /DeploymentVersionNotFoundError: Worker deployment \S+ has no version v9/)
    const listedByViewer = await flowport(['deploy', 'list'], { env: { ...env, FLOWPORT_TOKEN: keys.viewer! } })
    t.equal(listedByViewer.code, 0, 'a key with read lists')
    const refused = await flowport(['deploy', 'current', 'v1'], { env: { ...env, FLOWPORT_TOKEN: keys.viewer! } })
    t.equal(refused.code, 3, 'a key without control: exit 3')
    t.match(refused.stderr, 'ForbiddenError: Key viewer lacks scope control')
  })
})

t.test('three versions with derived build ids: each worker publishes; ramp, current, drain and rollback through all three', async (t) => {
  // Every code change is a new version and a new catalog: the third one's worker used to exit
  // (the catalog workflow had continued as new, worker/src/runtime/publish.ts).
  const catalog = `three-${randomUUID()}`
  const url = `/deployments/${catalog}`
  const logs: string[] = []
  const app = await build(t, { TEMPORAL_ADDRESS: engine.address, SERVICE_CATALOG_ID: catalog, SERVICE_API_KEYS_FILE: file }, logs)
  const change = async (method: 'PUT' | 'POST', path: string, payload?: object): Promise<Deployment> => {
    const res = await call(t, app, { method, url: `${url}${path}`, route: `${route}${path}`, headers: operator, ...(payload === undefined ? {} : { payload }) })
    t.equal(res.status, 200, `${method} ${path} ${JSON.stringify(payload ?? {})}`)
    return res.body as Deployment
  }
  const read = async () => (await call(t, app, { method: 'GET', url, route, headers: operator })).body as Deployment
  const state = (d: Deployment, buildId: string) => d.versions.find((v) => v.version.buildId === buildId)?.state
  /** Starts a worker of fixture `code` with no build id set, and reads the id it derived from its log. */
  const worker = async (code: string): Promise<{ buildId: string, proc: ReturnType<typeof spawnWorker> }> => {
    const proc = spawnWorker(t, { TEMPORAL_ADDRESS: engine.address, SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: resolve(`test/fixtures/rollout/${code}`), SERVICE_WORKER_VERSIONING: 'true' }, process.cwd())
    await proc.waitFor('Worker polling')
    const [, buildId] = /"buildId":"([0-9a-f]{12})"/.exec(proc.output()) ?? []
    t.ok(buildId, `the ${code} worker derived its build id`)
    t.match(proc.output(), `catalog of build ${buildId} published`, `the ${code} worker published its catalog`)
    return { buildId: buildId!, proc }
  }
  const pollersOf = (d: Deployment, buildId: string) => d.versions.find((v) => v.version.buildId === buildId)?.pollers
  /** A new run's code and the version the engine recorded it on. */
  const newRun = async () => {
    const res = await call(t, app, { method: 'POST', url: '/workflow/run', route: '/workflow/run', headers: operator, payload: { workflowName: 'rollout', input: {} } })
    t.equal(res.status, 200)
    const { workflowId, runId, output } = res.body as { workflowId: string, runId: string, output: { code: string } }
    return { code: output.code, buildId: await versionOfRun(app, workflowId, runId) }
  }

  const { buildId: v1, proc: v1Worker } = await worker('v1')
  const first = await eventually(read, (d) => d.versions.length === 1)
  t.equal(pollersOf(first, v1), 1, 'one worker of v1 polls')
  t.match(first.versions[0], { lastPollTime: String }, 'with its last poll')
  await change('PUT', '/current', { buildId: v1 })
  const { buildId: v2 } = await worker('v2')
  t.not(v2, v1, 'changed code, another build id')
  await eventually(read, (d) => d.versions.length === 2)
  t.match((await change('PUT', '/ramp', { buildId: v2, percentage: 50 })).ramping, { version: { buildId: v2 }, percentage: 50 })
  t.same((await change('PUT', '/current', { buildId: v2 })).current, { deploymentName: catalog, buildId: v2 })
  t.same(await newRun(), { code: 'v2', buildId: v2 }, 'v2 runs the new runs')
  t.equal(state(await eventually(read, (d) => state(d, v1) === 'drained', 120), v1), 'drained', 'v1 drained')
  await v1Worker.kill('SIGTERM') // drained: its workers can stop

  const { buildId: v3 } = await worker('v3')
  t.equal(new Set([v1, v2, v3]).size, 3, 'three build ids')
  await eventually(read, (d) => d.versions.length === 3)
  // Three operators ramp at once from the same read: one change lands, the others are told (412), none is lost silently.
  const seen = await call(t, app, { method: 'GET', url, route, headers: operator })
  const etag = seen.headers.etag as string
  t.match(etag, /^"[A-Za-z0-9_-]+"$/, 'GET names the deployment\'s conflict token as its ETag')
  const ramps = await Promise.all([50, 20, 30].map(async (percentage) =>
    await call(t, app, { method: 'PUT', url: `${url}/ramp`, route: `${route}/ramp`, headers: { ...operator, 'if-match': etag }, payload: { buildId: v3, percentage } })))
  t.same(ramps.map((r) => r.status).sort(), [200, 412, 412], 'one of three guarded ramps lands')
  const landed = ramps.find((r) => r.status === 200)!
  t.not(landed.headers.etag, etag, 'the change answers the new ETag')
  t.equal((await read()).ramping?.percentage, (landed.body as Deployment).ramping?.percentage, 'the one that landed is the ramp')
  for (const lost of ramps.filter((r) => r.status === 412)) t.match(lost.body, { error: 'PreconditionFailedError', message: /was changed since that ETag was served/ })
  const stale = await call(t, app, { method: 'PUT', url: `${url}/ramp`, route: `${route}/ramp`, headers: { ...operator, 'if-match': etag }, payload: { buildId: v3, percentage: 20 } })
  t.equal(stale.status, 412, 'a stale ETag: 412, nothing sent')
  const guarded = await call(t, app, { method: 'PUT', url: `${url}/ramp`, route: `${route}/ramp`, headers: { ...operator, 'if-match': landed.headers.etag as string }, payload: { buildId: v3, percentage: 20 } })
  t.equal(guarded.status, 200, 'the current ETag: the change lands')
  t.match((guarded.body as Deployment).ramping, { version: { buildId: v3 }, percentage: 20 })
  t.same((await change('PUT', '/current', { buildId: v3 })).current, { deploymentName: catalog, buildId: v3 })
  t.same(await newRun(), { code: 'v3', buildId: v3 }, 'v3 runs the new runs')
  t.equal(state(await eventually(read, (d) => state(d, v2) === 'drained', 120), v2), 'drained', 'v2 drained')

  t.same((await change('POST', '/rollback')).current, { deploymentName: catalog, buildId: v2 }, 'rollback: v2 is current again')
  // The audit line is written once the answer has gone out (reads, scope `read`, are not audited).
  const auditLines = async () => logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.audit === true && l.deploymentName === catalog && l.action !== 'getDeployment')
  const audit = await eventually(auditLines, (lines) => lines.some((l) => l.action === 'rollbackDeployment'))
  t.match(audit[0], { action: 'setCurrentDeploymentVersion', deploymentName: catalog, buildId: v1, percentage: null, keyId: 'operator', outcome: '200' },
    'each change is one audit line naming the deployment, the build id and the percentage')
  t.ok(audit.some((l) => l.action === 'rampDeploymentVersion' && l.buildId === v3 && l.percentage === 20 && l.outcome === '200'), 'the ramp that landed')
  t.equal(audit.filter((l) => l.outcome === '412 PreconditionFailedError').length, 3, 'the refused ones too')
  t.match(audit.at(-1), { action: 'rollbackDeployment', buildId: v2, percentage: null }, 'a rollback names the version it made current')
  t.same(await newRun(), { code: 'v2', buildId: v2 }, 'v2 runs the new runs again')

  // v1's worker has stopped: once the engine no longer counts its poller, new runs sent to v1 would wait unseen.
  const gone = await eventually(read, (d) => pollersOf(d, v1) === 0, 400)
  t.equal(pollersOf(gone, v1), 0, 'v1 has no pollers')
  const lastPoll = gone.versions.find((v) => v.version.buildId === v1)?.lastPollTime
  t.ok(lastPoll && Date.now() - Date.parse(lastPoll) >= 70_000, `and says when its worker last polled (${String(lastPoll)}): more than 70 s ago`)
  for (const [method, path, payload] of [['PUT', '/current', { buildId: v1 }], ['PUT', '/ramp', { buildId: v1, percentage: 10 }], ['POST', '/rollback', { buildId: v1 }]] as const) {
    const refused = await call(t, app, { method, url: `${url}${path}`, route: `${route}${path}`, headers: operator, payload })
    t.equal(refused.status, 409, `${method} ${path} to a version with no pollers: 409`)
    t.match(refused.body, { error: 'DeploymentConflictError', message: /No worker of version \S+ of \S+ polls now.*allowNoPollers: true/ })
  }
  t.same((await read()).current, { deploymentName: catalog, buildId: v2 }, 'nothing changed')
  t.match((await change('PUT', '/ramp', { buildId: v1, percentage: 10, allowNoPollers: true })).ramping, { version: { buildId: v1 }, percentage: 10 }, 'allowNoPollers: the operator says so')
  // A run pinned to v1 (a start may name its version) has no worker to take its tasks: status says so and why.
  const stuck = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', headers: operator, payload: { workflowName: 'rollout', input: {}, version: { deploymentName: catalog, buildId: v1 } } })
  t.equal(stuck.status, 200)
  const { workflowId: stuckId } = stuck.body as { workflowId: string }
  const status = await call(t, app, { method: 'GET', url: `/workflow/${stuckId}/status`, route: '/workflow/{id}/status', headers: operator })
  t.match(status.body, { status: 'running', version: { buildId: v1 }, versioning: 'pinned', workersPolling: false }, 'pinned to v1, whose workers are gone: workersPolling false')
  t.match(status.body, { attention: { kind: 'versionNotPolled', message: new RegExp(`pinned to version ${v1} .*none of its workers polls`), attempts: null } })
  const elsewhere = await startRun(t, app)
  const polled = (await call(t, app, { method: 'GET', url: `/workflow/${elsewhere.workflowId}/status`, route: '/workflow/{id}/status', headers: operator })).body as { workersPolling: boolean | null, attention: unknown }
  t.equal(polled.attention, null, 'a run on a version whose workers poll: no attention')
  t.not(polled.workersPolling, false, 'and workersPolling is not false (null only when the engine cannot say)')

  const cliEnv = { FLOWPORT_URL: await app.listen({ port: 0, host: '127.0.0.1' }), FLOWPORT_TOKEN: keys.operator!, SERVICE_CATALOG_ID: catalog }
  const listed = await flowport(['deploy', 'list', catalog], { env: cliEnv })
  t.match(listed.stdout, /build id\s+state\s+since\s+pollers\s+open runs/, 'flowport deploy list shows pollers')
  t.match(listed.stdout, new RegExp(`${v1}\\s+ramping 10%\\s+\\S+\\s+0\\s`), 'v1: no pollers')

  // Runs by version: the API's filter, `flowport runs --version` (a build id alone: of the catalog's deployment) and the status's version as text.
  const onV1 = await eventually(async () => (await call(t, app, { method: 'GET', url: `/workflow/runs?version=${encodeURIComponent(`${catalog}:${v1}`)}`, route: '/workflow/runs', headers: operator })).body as { runs: Array<{ workflowId: string, version: { buildId: string } | null }> },
    (page) => page.runs.some((r) => r.workflowId === stuckId))
  t.ok(onV1.runs.length > 0 && onV1.runs.every((r) => r.version?.buildId === v1), 'GET /workflow/runs?version= lists the runs on that version only')
  const badVersion = await call(t, app, { method: 'GET', url: `/workflow/runs?version=${v1}`, route: '/workflow/runs', headers: operator })
  t.equal(badVersion.status, 400, 'a version without its deployment is a 400 that says the form')
  t.match(badVersion.body, { error: 'ValidationError', issues: [{ path: '/version', message: 'must be `<deploymentName>:<buildId>`, with no control character' }] }, 'the rule in words, not the pattern')
  const byCli = await flowport(['runs', '--version', v1, '--json'], { env: cliEnv })
  t.equal(byCli.code, 0, byCli.stderr)
  t.same((JSON.parse(byCli.stdout) as Array<{ workflowId: string }>).map((r) => r.workflowId).sort(), onV1.runs.map((r) => r.workflowId).sort(), 'flowport runs --version <buildId>')
  const shownStatus = await flowport(['status', stuckId], { env: cliEnv })
  t.match(shownStatus.stdout, new RegExp(`version\\s+${catalog}:${v1}\\n`), 'flowport status prints the version as text')

  // The stuck run moves to a version that runs (the engine's versioning override): not to one whose workers are gone.
  const toGone = await call(t, app, { method: 'PUT', url: `/workflow/${stuckId}/versioning`, route: '/workflow/{id}/versioning', headers: operator, payload: { behavior: 'pinned', version: { deploymentName: catalog, buildId: v1 } } })
  t.equal(toGone.status, 409, 'moving a run to a version with no pollers: 409')
  t.match(toGone.body, { error: 'DeploymentConflictError', message: new RegExp(`No worker of version ${v1} of \\S+ polls catalog .*allowNoPollers: true`) })
  const cliGone = await flowport(['deploy', 'move', stuckId, '--to', v1], { env: cliEnv })
  t.equal(cliGone.code, 2, 'flowport deploy move to a version with no pollers: exit 2')
  t.match(cliGone.stderr, /DeploymentConflictError: No worker of version .*--allow-no-pollers/)
  const cliMoved = await flowport(['deploy', 'move', stuckId, '--to', v2], { env: cliEnv })
  t.equal(cliMoved.code, 0, cliMoved.stderr)
  t.equal(await waitClosed(app, stuckId), 'COMPLETED', 'the stuck run moved on and finished')
  t.same(await app.engine.client.workflow.getHandle(stuckId).result(), { code: 'v2' }, 'on v2\'s code')
  t.match((await call(t, app, { method: 'GET', url: `/workflow/${stuckId}/status`, route: '/workflow/{id}/status', headers: operator })).body,
    { version: { buildId: v2 }, versioningOverride: { behavior: 'pinned', version: { buildId: v2 } }, attention: null }, 'its status shows the override')

  const catalogs = await call(t, app, { method: 'GET', url: `/workflow/catalog/${catalog}`, route: '/workflow/catalog/{catalogId}', headers: operator })
  t.equal(catalogs.status, 200)
  t.match(catalogs.body, { deployment: { buildId: v2 } }, 'the catalog shown is the current version\'s')
})
