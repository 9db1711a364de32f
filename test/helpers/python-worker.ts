/**
 * The example Python worker (examples/python-worker: Temporal's Python SDK, nothing of Flowport's)
 * for the end-to-end tests of declared catalogs: its virtual environment is made from the
 * example's own pinned requirements.txt when missing (./python-venv.ts: cached, named by the file's
 * hash), then the worker runs on a task queue of the test's own and its catalog file is published
 * under that id with `flowport catalog publish`, as a user would. Python missing fails the test; it
 * never skips it.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Test } from 'tap'
import { pythonVenv } from './python-venv.js'
import { startForeignWorker, type ForeignWorker } from './foreign-worker.js'

export const PYTHON_WORKER_DIR = resolve('examples/python-worker')

/** The worker's interpreter, its environment installed first when missing; and how long that took (ms). */
export function pythonWorkerPython (log: (message: string) => void = () => {}): { python: string, setupMs: number } {
  const requirements = join(PYTHON_WORKER_DIR, 'requirements.txt')
  const pins = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 12)
  const began = Date.now()
  const { python } = pythonVenv(`python-worker-${pins}`, ['-r', requirements], log)
  return { python, setupMs: Date.now() - began }
}

export type PythonWorker = ForeignWorker

/** Starts the Python worker on `taskQueue` and publishes the example's catalog file under that id (./foreign-worker.ts). */
export async function startPythonWorker (t: Test, taskQueue: string): Promise<PythonWorker> {
  const { python, setupMs } = pythonWorkerPython((m) => { t.comment(m) })
  t.comment(`python worker environment ready in ${setupMs} ms`)
  return await startForeignWorker(t, taskQueue, {
    language: 'Python', command: python, args: ['worker.py'], dir: PYTHON_WORKER_DIR, taskQueueVariable: 'PYTHON_WORKER_TASK_QUEUE', env: { PYTHONUNBUFFERED: '1' }
  })
}
