/**
 * The example Python worker (examples/python-worker: Temporal's Python SDK, nothing of Flowport's)
 * for the end-to-end tests of declared catalogs: its virtual environment is made from the
 * example's own pinned requirements.txt when missing (./python-venv.ts: cached, named by the file's
 * hash), then the worker runs on a task queue of the test's own and its catalog file is published
 * under that id with `flowport catalog publish`, as a user would. Python missing fails the test; it
 * never skips it.
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Test } from 'tap'
import { parseDocument } from 'yaml'
import { pythonVenv } from './python-venv.js'
import { engineAddress } from './env.js'
import { flowport } from './flowport-cli.js'

export const PYTHON_WORKER_DIR = resolve('examples/python-worker')

/** The worker's interpreter, its environment installed first when missing; and how long that took (ms). */
export function pythonWorkerPython (log: (message: string) => void = () => {}): { python: string, setupMs: number } {
  const requirements = join(PYTHON_WORKER_DIR, 'requirements.txt')
  const pins = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 12)
  const began = Date.now()
  const { python } = pythonVenv(`python-worker-${pins}`, ['-r', requirements], log)
  return { python, setupMs: Date.now() - began }
}

export interface PythonWorker {
  taskQueue: string
  output: () => string
}

/**
 * Starts the Python worker on `taskQueue` (killed at teardown) and publishes the example's catalog
 * file under that id once it polls.
 */
export async function startPythonWorker (t: Test, taskQueue: string): Promise<PythonWorker> {
  const { python, setupMs } = pythonWorkerPython((m) => { t.comment(m) })
  t.comment(`python worker environment ready in ${setupMs} ms`)
  const child = spawn(python, ['worker.py'], {
    cwd: PYTHON_WORKER_DIR,
    env: { ...process.env, TEMPORAL_ADDRESS: engineAddress(), TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default', PYTHON_WORKER_TASK_QUEUE: taskQueue, PYTHONUNBUFFERED: '1' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout.on('data', (c: Buffer) => { output += c.toString() })
  child.stderr.on('data', (c: Buffer) => { output += c.toString() })
  const exited = new Promise<number | null>((done) => child.once('exit', done))
  t.teardown(async () => {
    child.kill('SIGTERM')
    await exited
  })
  await Promise.race([
    new Promise<void>((done) => {
      const check = () => { if (output.includes(`Python worker polling ${taskQueue}`)) done(); else setTimeout(check, 100) }
      check()
    }),
    exited.then((code) => { throw new Error(`the Python worker exited (${String(code)}) before polling:\n${output}`) })
  ])
  // The example's file, under the test's catalog id.
  const doc = parseDocument(readFileSync(join(PYTHON_WORKER_DIR, 'catalog.yaml'), 'utf8'))
  doc.set('catalog', taskQueue)
  const file = join(mkdtempSync(join(tmpdir(), 'flowport-python-')), 'catalog.yaml')
  writeFileSync(file, doc.toString())
  const published = await flowport(['catalog', 'publish', file])
  if (published.code !== 0) throw new Error(`flowport catalog publish failed (${String(published.code)}): ${published.stderr}`)
  return { taskQueue, output: () => output }
}
