/**
 * `flowport replay`, the check before a deploy: runs recorded by version 1 of a workflow
 * (test/fixtures/drift/v1: steps a, then b) replayed from the real engine, and from history files,
 * against version 2 (b, then a: incompatible) and against version 2 guarded with `patched()`; an
open run is replayed too, whatever the window.
 */
import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { randomUUID } from 'node:crypto'
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js'
import { build } from './helpers/app.js'
import { eventually, start, waitClosed } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'
import { flowport } from './helpers/flowport-cli.js'
import { replayQuery } from '../cli/replay.js'

const catalog = `replay-${randomUUID()}`
const fixture = (version: string) => resolve(`test/fixtures/drift/${version}`)
const replay = async (version: string, args: string[] = []) =>
  await flowport(['replay', ...args], { env: { SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: fixture(version), LOG_LEVEL: 'warn' } })

t.test('replay against the engine catches an incompatible change and passes the patched one', async (t) => {
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  const worker = spawnWorker(t, { SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: fixture('v1') }, process.cwd())
  await worker.waitFor(`Worker polling catalog ${catalog}`)
  const runs = [await start(t, app, 'drifting', {}), await start(t, app, 'drifting', {})]
  for (const run of runs) t.equal(await waitClosed(app, run.workflowId, run.runId), 'COMPLETED')
  await worker.kill()
  // Open, with no worker to take its first task: open runs count whatever the window.
  const open = await start(t, app, 'drifting', {})
  t.teardown(async () => { await app.engine.client.workflow.getHandle(open.workflowId, open.runId).terminate('test over') })
  // The list the command reads is the engine's visibility store, which follows closes eventually.
  const since = new Date(Date.now() - 3_600_000)
  const count = async () => {
    const ids: string[] = []
    for await (const run of app.engine.client.workflow.list({ query: replayQuery(catalog, ['drifting'], since) })) ids.push(run.runId)
    return ids.length
  }
  t.equal(await eventually(count, (n) => n === runs.length + 1), runs.length + 1, 'the engine lists the three runs')

  const broken = await replay('v2')
  t.equal(broken.code, 1, 'an incompatible change exits 1')
  for (const run of runs) {
    t.match(broken.stdout, new RegExp(`✗ drifting ${run.workflowId} run ${run.runId} diverges at event 5 \\(ActivityTaskScheduled drifting#a\\):`), `names ${run.workflowId}, its run and the event`)
  }
  t.match(broken.stdout, /Nondeterminism error: Activity type of scheduled event 'drifting#a' does not match activity type of activity command 'drifting#b'/, 'with the replayer\'s reason')
  t.match(broken.stdout, /Replayed 3 run\(s\) from catalog .*drifting.*: 2 diverged\./)

  const patched = await replay('v2-patched')
  t.equal(patched.code, 0, `the change guarded with patched() exits 0\n${patched.stdout}${patched.stderr}`)
  t.match(patched.stdout, /Replayed 3 run\(s\) from catalog .*: all replay with this code\./)
  t.notMatch(patched.stdout, /✗/)

  const limited = await replay('v2', ['--limit', '2', '--workflow', 'drifting'])
  t.equal(limited.code, 1)
  t.match(limited.stdout, /Replayed 2 run\(s\) from catalog .* \(drifting\): 1 diverged\./, '--limit caps the runs per workflow')

  const tooOld = await replay('v2', ['--since', '1ms'])
  t.equal(tooOld.code, 0, 'runs closed before the window are left out')
  t.match(tooOld.stdout, /Replayed 1 run\(s\)/, 'the open run is not')

  await t.test('history files', async (t) => {
    const dir = t.testdir({})
    const file = join(dir, 'drifting.json')
    writeFileSync(file, historyToJSON(await app.engine.client.workflow.getHandle(runs[0].workflowId, runs[0].runId).fetchHistory()))
    const fromFile = await replay('v2', ['--history', file])
    t.equal(fromFile.code, 1)
    t.match(fromFile.stdout, new RegExp(`✗ drifting drifting.json run ${runs[0].runId} diverges at event 5 \\(ActivityTaskScheduled drifting#a\\)`))
    t.match(fromFile.stdout, /Replayed 1 run\(s\) from 1 history file\(s\): 1 diverged\./)
    t.equal((await replay('v2-patched', ['--history', file])).code, 0)
    const notHistory = join(dir, 'other.json')
    writeFileSync(notHistory, '{"events":[]}')
    const bad = await replay('v2', ['--history', notHistory])
    t.equal(bad.code, 2)
    t.match(bad.stderr, /not a Temporal history/)
  })
})

t.test('usage errors exit 2', async (t) => {
  const unknown = await replay('v2', ['--workflow', 'nosuch', '--history', 'x.json'])
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /Not in catalog .*: nosuch \(its workflows: .*drifting.*\)/)
  const window = await replay('v2', ['--since', 'yesterday'])
  t.equal(window.code, 2)
  t.match(window.stderr, /--since .* takes a duration/)
})
