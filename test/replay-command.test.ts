/**
 * `flowport replay`, the check before a deploy: runs recorded by version 1 of a workflow
 * (test/fixtures/drift/v1: steps a, then b) replayed from the real engine, and from history files,
 * against version 2 (b, then a: incompatible) and against version 2 guarded with `patched()`; an
 * open run that has run its first task is replayed too, whatever the window. With worker versioning
 * (test/fixtures/versioning: `gated` changes incompatibly, `moving` is autoUpgrade and replays on
 * either), only the runs the new code will run are replayed unless `--all`.
 */
import t, { type Test } from 'tap'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { randomUUID } from 'node:crypto'
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js'
import { build } from './helpers/app.js'
import { eventually, firstTaskCompleted, newId, start, waitClosed } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'
import { flowport } from './helpers/flowport-cli.js'
import { replayQuery } from '../cli/replay-sources.js'
import { pinnedElsewhere } from '../cli/replay-sources.js'
import { runVersionOfInfo } from '../plugins/app/engine/runs/run-version.js'
import type { App } from '../app.js'

const catalog = `replay-${randomUUID()}`
const fixture = (version: string) => resolve(`test/fixtures/drift/${version}`)
const replay = async (version: string, args: string[] = [], env: Record<string, string> = {}) =>
  await flowport(['replay', ...args], { env: { SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: fixture(version), LOG_LEVEL: 'warn', ...env } })

/** How many runs of these workflow types the engine lists as the command reads them (visibility follows eventually). */
const listed = async (app: App, catalogId: string, types: string[], n: number) => {
  const since = new Date(Date.now() - 3_600_000)
  const count = async () => {
    const ids: string[] = []
    for await (const run of app.engine.client.workflow.list({ query: replayQuery(catalogId, types, since) })) ids.push(run.runId)
    return ids.length
  }
  return await eventually(count, (m) => m === n)
}

const terminateAtEnd = (t: Test, app: App, run: { workflowId: string, runId: string }) =>
  t.teardown(async () => { await app.engine.client.workflow.getHandle(run.workflowId, run.runId).terminate('test over').catch(() => undefined) })

t.test('replay against the engine catches an incompatible change and passes the patched one', async (t) => {
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  const worker = spawnWorker(t, { SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: fixture('v1') }, process.cwd())
  await worker.waitFor(`Worker polling catalog ${catalog}`)
  const runs = [await start(t, app, 'drifting', {}), await start(t, app, 'drifting', {})]
  for (const run of runs) t.equal(await waitClosed(app, run.workflowId, run.runId), 'COMPLETED')
  // Open, waiting for `finish` after its steps: its first task scheduled step a, so new code can diverge from it.
  const open = await start(t, app, 'drifting', { hold: true })
  terminateAtEnd(t, app, open)
  t.ok(await firstTaskCompleted(app, open.workflowId, open.runId), 'the open run ran its first task')
  await worker.kill()
  t.equal(await listed(app, catalog, ['drifting'], runs.length + 1), runs.length + 1, 'the engine lists the three runs')

  const broken = await replay('v2')
  t.equal(broken.code, 1, 'an incompatible change exits 1')
  for (const run of [...runs, open]) {
    t.match(broken.stdout, new RegExp(`✗ drifting ${run.workflowId} run ${run.runId} \\(unversioned\\) diverges at event 5 \\(ActivityTaskScheduled drifting#a\\):`), `names ${run.workflowId}, its run, its version and the event`)
  }
  t.match(broken.stdout, /Nondeterminism error: Activity type of scheduled event 'drifting#a' does not match activity type of activity command 'drifting#b'/, 'with the replayer\'s reason')
  t.match(broken.stdout, new RegExp(`Replayed 3 run\\(s\\) from catalog ${catalog} \\(.*drifting.*\\): 3 diverged\\. Skipped 0 run\\(s\\) pinned to versions other than this code's \\(${catalog}:[0-9a-f]{12}\\)\\.`),
    'unversioned runs are replayed: the new code meets them')

  const patched = await replay('v2-patched')
  t.equal(patched.code, 0, `the change guarded with patched() exits 0\n${patched.stdout}${patched.stderr}`)
  t.match(patched.stdout, /Replayed 3 run\(s\) from catalog .*: all replay with this code\./)
  t.notMatch(patched.stdout, /✗/)

  const limited = await replay('v2', ['--limit', '2', '--workflow', 'drifting'])
  t.equal(limited.code, 1)
  t.match(limited.stdout, /Replayed 2 run\(s\) from catalog .* \(drifting\): 2 diverged\./, '--limit caps the runs per workflow')

  const tooOld = await replay('v2', ['--since', '1ms'])
  t.match(tooOld.stdout, /Replayed 1 run\(s\)/, 'runs closed before the window are left out, the open run is not')
  t.match(tooOld.stdout, new RegExp(`✗ drifting ${open.workflowId} run ${open.runId} \\(unversioned\\) diverges at event 5`), 'and it diverges')
  t.equal(tooOld.code, 1)

  await t.test('history files', async (t) => {
    const dir = t.testdir({})
    const file = join(dir, 'drifting.json')
    writeFileSync(file, historyToJSON(await app.engine.client.workflow.getHandle(runs[0].workflowId, runs[0].runId).fetchHistory()))
    const fromFile = await replay('v2', ['--history', file])
    t.equal(fromFile.code, 1)
    t.match(fromFile.stdout, new RegExp(`✗ drifting drifting.json run ${runs[0].runId} \\(unversioned\\) diverges at event 5 \\(ActivityTaskScheduled drifting#a\\)`))
    t.match(fromFile.stdout, /Replayed 1 run\(s\) from 1 history file\(s\): 1 diverged\./)
    t.equal((await replay('v2-patched', ['--history', file])).code, 0)
    const notHistory = join(dir, 'other.json')
    writeFileSync(notHistory, '{"events":[]}')
    const bad = await replay('v2', ['--history', notHistory])
    t.equal(bad.code, 2)
    t.match(bad.stderr, /not a Temporal history/)
    const notJson = join(dir, 'truncated.json')
    writeFileSync(notJson, '{"events":[{"eventId"')
    const truncated = await replay('v2', ['--history', file, notJson])
    t.equal(truncated.code, 2, 'a file that does not parse is a usage error')
    t.match(truncated.stderr, `${notJson}: not a Temporal history in JSON (`, 'named in the error')
    const missing = await replay('v2', ['--history', join(dir, 'nosuch.json')])
    t.equal(missing.code, 2)
    t.match(missing.stderr, `${join(dir, 'nosuch.json')}: cannot be read`)
  })
})

t.test('with worker versioning, runs pinned to another version are skipped unless --all', async (t) => {
  const versioned = `replay-versions-${randomUUID()}`
  const versioning = (version: string) => resolve(`test/fixtures/versioning/${version}`)
  const replayAs = async (version: string, args: string[] = [], env: Record<string, string> = {}) =>
    await flowport(['replay', ...args], { env: { SERVICE_CATALOG_ID: versioned, SERVICE_WORKFLOWS_DIR: versioning(version), LOG_LEVEL: 'warn', ...env } })
  const app = await build(t, { SERVICE_CATALOG_ID: versioned })
  // Its build id derived from the code, as `flowport replay` derives the new code's.
  const worker = spawnWorker(t, { SERVICE_CATALOG_ID: versioned, SERVICE_WORKFLOWS_DIR: versioning('v1'), SERVICE_WORKER_VERSIONING: 'true' }, process.cwd())
  await worker.waitFor(`Worker polling catalog ${versioned}`)
  const buildId = /"buildId":"([0-9a-f]{12})"/.exec(worker.output())?.[1] ?? ''
  t.not(buildId, '', `the worker polls as a derived build id (${buildId})`)
  const setCurrent = async () => await app.engine.client.workflowService.setWorkerDeploymentCurrentVersion({
    namespace: app.engine.namespace, deploymentName: versioned, buildId, identity: 'replay-command.test'
  }).then(() => true, () => false)
  t.ok(await eventually(setCurrent, (done) => done), 'v1 is current')
  const v1 = `${versioned}:${buildId}`

  const pinned = await start(t, app, 'gated', {})
  // `gated` is pinned by its definition; the engine's override makes this run of it autoUpgrade.
  const upgrading = await app.engine.client.workflow.start('gated', { taskQueue: versioned, workflowId: newId('upgrading'), args: [{}], versioningOverride: 'AUTO_UPGRADE' })
  const upgradingRun = { workflowId: upgrading.workflowId, runId: upgrading.firstExecutionRunId }
  const moving = await start(t, app, 'moving', {})
  for (const run of [pinned, upgradingRun, moving]) {
    terminateAtEnd(t, app, run)
    t.ok(await firstTaskCompleted(app, run.workflowId, run.runId), `${run.workflowId} ran its first task`)
  }
  t.equal(await listed(app, versioned, ['gated', 'moving'], 3), 3, 'the engine lists the three runs')
  const diverges = (run: { workflowId: string, runId: string }, behaviour: string) =>
    new RegExp(`✗ gated ${run.workflowId} run ${run.runId} \\(${behaviour}, version ${v1}\\) diverges at event 5 \\(ActivityTaskScheduled gated#first\\):`)

  const v2 = await replayAs('v2')
  t.equal(v2.code, 1, `the autoUpgrade run diverges\n${v2.stdout}${v2.stderr}`)
  t.match(v2.stdout, diverges(upgradingRun, 'autoUpgrade'), 'with its behaviour and version')
  t.notMatch(v2.stdout, pinned.workflowId, 'the run pinned to v1 is not replayed: v2 never runs it')
  t.match(v2.stdout, `- skipped: 1 run(s) pinned to ${v1}, which this code never runs`)
  t.match(v2.stdout, new RegExp(`Replayed 2 run\\(s\\) from catalog ${versioned} \\(.*gated, .*moving.*\\): 1 diverged\\. Skipped 1 run\\(s\\) pinned to versions other than this code's \\(${versioned}:[0-9a-f]{12}\\): flowport replay --all replays them too\\.`),
    'the summary counts the replayed, skipped and diverged runs and says how to replay them all')

  const all = await replayAs('v2', ['--all'])
  t.equal(all.code, 1)
  t.match(all.stdout, diverges(pinned, 'pinned'), '--all replays the pinned run too')
  t.match(all.stdout, diverges(upgradingRun, 'autoUpgrade'))
  t.notMatch(all.stdout, /skipped/)
  t.match(all.stdout, new RegExp(`Replayed 3 run\\(s\\) from catalog ${versioned} \\(.*gated, .*moving.*\\): 2 diverged\\. Runs pinned to other versions included \\(--all\\)\\.`))

  const sameVersion = await replayAs('v2', [], { SERVICE_WORKER_BUILD_ID: buildId })
  t.equal(sameVersion.code, 1)
  t.match(sameVersion.stdout, diverges(pinned, 'pinned'), 'new code deployed as the pinned run\'s own version meets it, so it is replayed')
  t.match(sameVersion.stdout, /Replayed 3 run\(s\) .*: 2 diverged\. Skipped 0 run\(s\)/)

  const sameCode = await replayAs('v1')
  t.equal(sameCode.code, 0, `v1's own code derives v1's build id and replays its runs, the pinned one too\n${sameCode.stdout}${sameCode.stderr}`)
  t.match(sameCode.stdout, new RegExp(`Replayed 3 run\\(s\\) .*: all replay with this code\\. Skipped 0 run\\(s\\) pinned to versions other than this code's \\(${v1}\\)\\.`))
})

t.test('which runs the new code meets', async (t) => {
  const newCode = { deploymentName: 'main', buildId: 'new' }
  const version = (buildId: string) => ({ deploymentName: 'main', buildId })
  const PINNED = 1 // temporal.api.enums.v1.VersioningBehavior
  const AUTO_UPGRADE = 2
  t.equal(pinnedElsewhere(runVersionOfInfo(null), newCode), null, 'an unversioned run')
  t.equal(pinnedElsewhere(runVersionOfInfo({ behavior: AUTO_UPGRADE, deploymentVersion: version('old') }), newCode), null, 'an autoUpgrade run')
  t.same(pinnedElsewhere(runVersionOfInfo({ behavior: PINNED, deploymentVersion: version('old') }), newCode), version('old'), 'not a run pinned to another version')
  t.same(pinnedElsewhere(runVersionOfInfo({ behavior: PINNED, deploymentVersion: { deploymentName: 'other', buildId: 'new' } }), newCode), { deploymentName: 'other', buildId: 'new' }, 'nor to another deployment\'s version of that build id')
  t.equal(pinnedElsewhere(runVersionOfInfo({ behavior: PINNED, deploymentVersion: version('new') }), newCode), null, 'a run pinned to the version the new code polls as')
  t.equal(pinnedElsewhere(runVersionOfInfo({ behavior: PINNED, deploymentVersion: version('old'), versioningOverride: { autoUpgrade: true } }), newCode), null, 'a pinned run overridden to autoUpgrade')
  t.same(pinnedElsewhere(runVersionOfInfo({ behavior: AUTO_UPGRADE, deploymentVersion: version('old'), versioningOverride: { pinned: { version: version('older') } } }), newCode), version('older'), 'an autoUpgrade run pinned by an override')
})

t.test('usage errors exit 2, an engine out of reach 3', async (t) => {
  const unknown = await replay('v2', ['--workflow', 'nosuch', '--history', 'x.json'])
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /Not in catalog .*: nosuch \(its workflows: .*drifting.*\)/)
  const window = await replay('v2', ['--since', 'yesterday'])
  t.equal(window.code, 2)
  t.match(window.stderr, /--since .* takes a duration/)

  const help = await flowport(['replay', '--help'])
  t.equal(help.code, 0)
  for (const setting of ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_API_KEY', 'SERVICE_CATALOG_ID', 'SERVICE_WORKFLOWS_DIR', 'SERVICE_WORKER_BUILD_ID', '--all']) {
    t.match(help.stdout, setting, `--help names ${setting}`)
  }

  const away = await replay('v2', [], { TEMPORAL_ADDRESS: '127.0.0.1:1' })
  t.equal(away.code, 3)
  t.match(away.stderr, /^Cannot reach the engine at 127\.0\.0\.1:1 \(TEMPORAL_ADDRESS\) within 3 s: /, 'names the address, and gives up after a short connect timeout instead of the SDK\'s 10 s')
})
