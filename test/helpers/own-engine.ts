/**
 * A Temporal dev server (on a SQLite file, so it can be stopped and started again on the same
 * data and port) and a worker of the test's own, for tests that kill the engine: the shared
 * engine of `npm test` stays untouched.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { startEngine, type Engine } from '../../cli/engine.js'
import { workerNodeArgs } from '../../cli/worker-entry.js'

export interface OwnEngine {
  address: string
  catalog: string
  /** SIGKILLs the engine (no shutdown of its own). */
  kill: () => Promise<void>
  /** Starts it again on the same port and data. */
  restart: () => Promise<void>
  /** SIGSTOPs the engine: its connections stay open and nothing answers (a hung engine). */
  freeze: () => void
  /** SIGCONTs it: it answers again. */
  thaw: () => void
}

function startWorker (address: string, catalog: string): ChildProcess {
  return spawn(process.execPath, workerNodeArgs, {
    env: { ...process.env, TEMPORAL_ADDRESS: address, SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: '' },
    stdio: 'ignore'
  })
}

export function killProcess (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((done) => { child.once('exit', () => done()); child.kill('SIGKILL') })
}

/** An engine and a worker publishing a catalog of the examples, both stopped at teardown. */
export async function ownEngine (t: Test): Promise<OwnEngine> {
  const dbFile = join(mkdtempSync(join(tmpdir(), 'flowport-own-engine-')), 'temporal.db')
  let engine: Engine = await startEngine({ dbFile })
  const address = engine.address
  const port = Number(address.split(':')[1])
  const catalog = `own-${randomUUID()}`
  const worker = startWorker(address, catalog)
  // A frozen engine would not stop: thawed first.
  t.teardown(async () => { engine.process.kill('SIGCONT'); await killProcess(worker); await engine.stop() })
  return {
    address,
    catalog,
    kill: async () => { await killProcess(engine.process) },
    restart: async () => { engine = await startEngine({ dbFile, port }) },
    freeze: () => { engine.process.kill('SIGSTOP') },
    thaw: () => { engine.process.kill('SIGCONT') }
  }
}
