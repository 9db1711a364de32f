/**
 * Killing and restarting Temporal or the worker loses no run and needs no API
 * restart. Engine, worker and API here are this test's own, so the shared ones stay untouched.
 */
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startEngine, type Engine } from '../cli/engine.js'
import { workerNodeArgs } from '../cli/worker-entry.js'
import { build } from './helpers/app.js'

function startWorker (address: string, catalog: string): ChildProcess {
  return spawn(process.execPath, workerNodeArgs, {
    env: { ...process.env, TEMPORAL_ADDRESS: address, SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: '' },
    stdio: 'ignore'
  })
}

function kill (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((done) => { child.once('exit', () => done()); child.kill('SIGKILL') })
}

async function until (check: () => Promise<boolean>, attempts = 120): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (await check().catch(() => false)) return true
    await new Promise((r) => setTimeout(r, 500))
  }
  return false
}

t.test('a run survives a killed worker and a killed engine, with the same API process', async (t) => {
  const dbFile = join(mkdtempSync(join(tmpdir(), 'flowport-resilience-')), 'temporal.db')
  let engine: Engine = await startEngine({ dbFile })
  const port = Number(engine.address.split(':')[1])
  const catalog = `resilience-${randomUUID()}`
  let worker = startWorker(engine.address, catalog)
  t.teardown(async () => { await kill(worker); await engine.stop() })

  const app = await build(t, { TEMPORAL_ADDRESS: engine.address, SERVICE_CATALOG_ID: catalog })
  const ready = () => app.inject({ method: 'GET', url: '/ready' }).then((r) => r.statusCode === 200)
  t.ok(await until(ready), 'ready once the worker published its catalog')

  const started = await app.inject({ method: 'POST', url: '/workflow/start', payload: { workflowName: 'sleepy', input: { steps: 6, delayMs: 700 } } })
  t.equal(started.statusCode, 200)
  const { workflowId, runId } = started.json()
  const ticks = async () => (await app.engine.client.workflow.getHandle(workflowId, runId).fetchHistory()).events
    ?.filter((e) => e.activityTaskCompletedEventAttributes).length ?? 0
  t.ok(await until(async () => await ticks() >= 1), 'the run makes progress')

  await kill(worker)
  worker = startWorker(engine.address, catalog)
  t.ok(await until(async () => await ticks() >= 3), 'a new worker picks the run up after the old one was killed')

  await kill(engine.process)
  const down = await app.inject({ method: 'GET', url: `/workflow/${workflowId}/status` })
  t.equal(down.statusCode, 503, 'engine down: 503, not 500')
  t.equal(down.json().error, 'EngineUnavailableError')
  engine = await startEngine({ dbFile, port })

  t.ok(await until(ready), 'the same API process is ready again')
  let result = await app.inject({ method: 'GET', url: `/workflow/${workflowId}/result` })
  for (let i = 0; i < 120 && result.statusCode === 424; i++) {
    await new Promise((r) => setTimeout(r, 500))
    result = await app.inject({ method: 'GET', url: `/workflow/${workflowId}/result` })
  }
  t.equal(result.statusCode, 200)
  t.match(result.json(), { workflowId, runId, status: 'completed', output: { ticks: 6 } }, 'the run completed with every step')
})
