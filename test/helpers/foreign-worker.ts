/**
 * A worker without Flowport's SDK (examples/python-worker, examples/go-worker) as the end-to-end
 * tests run it: started on a task queue of the test's own (killed at teardown), waited for until
 * it says it polls, then its example catalog file published under that id with
 * `flowport catalog publish`, as a user would.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { parseDocument } from 'yaml'
import { engineAddress } from './env.js'
import { flowport } from './flowport-cli.js'

export interface ForeignWorker {
  taskQueue: string
  output: () => string
}

export interface ForeignWorkerSpec {
  /** Its name in messages: `Python`, `Go`. */
  language: string
  command: string
  args?: string[]
  /** The example's folder: the worker runs there, and its catalog.yaml is the one published. */
  dir: string
  /** The variable that names the task queue it polls. */
  taskQueueVariable: string
  env?: Record<string, string>
}

export async function startForeignWorker (t: Test, taskQueue: string, spec: ForeignWorkerSpec): Promise<ForeignWorker> {
  const child = spawn(spec.command, spec.args ?? [], {
    cwd: spec.dir,
    env: { ...process.env, TEMPORAL_ADDRESS: engineAddress(), TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default', [spec.taskQueueVariable]: taskQueue, ...spec.env },
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
      const check = () => { if (output.includes(`${spec.language} worker polling ${taskQueue}`)) done(); else setTimeout(check, 100) }
      check()
    }),
    exited.then((code) => { throw new Error(`the ${spec.language} worker exited (${String(code)}) before polling:\n${output}`) })
  ])
  const doc = parseDocument(readFileSync(join(spec.dir, 'catalog.yaml'), 'utf8'))
  doc.set('catalog', taskQueue)
  const file = join(mkdtempSync(join(tmpdir(), 'flowport-foreign-')), 'catalog.yaml')
  writeFileSync(file, doc.toString())
  const published = await flowport(['catalog', 'publish', file])
  if (published.code !== 0) throw new Error(`flowport catalog publish failed (${String(published.code)}): ${published.stderr}`)
  return { taskQueue, output: () => output }
}
