/**
 * A worker is either polling or gone: started before its engine, it retries until the engine
 * answers; when the engine goes away it says so on its readiness probe and polls again once the
 * engine is back. Engine and worker here are this test's own.
 */
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startEngine, type Engine } from '../cli/engine.js'
import { workerNodeArgs } from '../cli/worker-entry.js'
import { freePort, until } from './helpers/processes.js'

t.setTimeout(600_000)

async function probe (port: number, path: string): Promise<{ status: number, body: { worker?: string, polling?: boolean } }> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5000) })
    return { status: res.status, body: await res.json() as { worker?: string, polling?: boolean } }
  } catch {
    return { status: 0, body: {} }
  }
}

function kill (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((done) => { child.once('exit', () => done()); child.kill('SIGKILL') })
}

t.test('a worker started before its engine polls once the engine answers, and again after the engine restarts', async (t) => {
  const enginePort = await freePort()
  const healthPort = await freePort()
  const dbFile = join(mkdtempSync(join(tmpdir(), 'flowport-worker-engine-')), 'temporal.db')
  const catalog = `engine-loss-${randomUUID()}`
  let output = ''
  const worker = spawn(process.execPath, workerNodeArgs, {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: `127.0.0.1:${enginePort}`,
      SERVICE_CATALOG_ID: catalog,
      SERVICE_WORKFLOWS_DIR: resolve('test/fixtures/workflows'),
      SERVICE_WORKER_HEALTH_PORT: String(healthPort)
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  worker.stdout.on('data', (c: Buffer) => { output += c.toString() })
  worker.stderr.on('data', (c: Buffer) => { output += c.toString() })
  let engine: Engine | undefined
  t.teardown(async () => { await kill(worker); await engine?.stop() })

  t.ok(await until(async () => (await probe(healthPort, '/health')).status === 200), 'alive without an engine')
  t.ok(await until(() => output.includes('Engine unavailable')), 'says that it retries')
  const waiting = await probe(healthPort, '/ready')
  t.equal(waiting.status, 503, 'not ready without an engine')
  t.equal(waiting.body.polling, false)

  engine = await startEngine({ dbFile, port: enginePort, strictPorts: true })
  t.ok(await until(async () => (await probe(healthPort, '/ready')).status === 200), 'ready once the engine answers')
  t.match(output, `Worker polling catalog ${catalog}`)

  await kill(engine.process)
  t.ok(await until(async () => (await probe(healthPort, '/ready')).status === 503), 'not ready while the engine is away')
  t.equal((await probe(healthPort, '/health')).status, 200, 'still alive: it waits for the engine')

  engine = await startEngine({ dbFile, port: enginePort, strictPorts: true })
  t.ok(await until(async () => (await probe(healthPort, '/ready')).status === 200), 'ready again once the engine is back')
  t.equal(worker.exitCode, null, 'the same worker process')
})

t.test('a worker whose engine stays away exits 1', async (t) => {
  const worker = spawn(process.execPath, workerNodeArgs, {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
      SERVICE_CATALOG_ID: `engine-gone-${randomUUID()}`,
      SERVICE_WORKFLOWS_DIR: resolve('test/fixtures/workflows'),
      SERVICE_WORKER_ENGINE_RETRY_MS: '2000'
    },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  worker.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
  t.teardown(() => kill(worker))
  const code = await new Promise<number | null>((done) => worker.once('exit', (c) => done(c)))
  t.equal(code, 1, 'exit code 1, for a supervisor to restart it')
  t.match(stderr, /Engine out of reach for \d+ s, giving up/)
})
