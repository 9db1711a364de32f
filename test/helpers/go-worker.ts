/**
 * The example Go worker (examples/go-worker: Temporal's Go SDK, nothing of Flowport's) for the
 * end-to-end tests of declared catalogs: built with `go build` from the example's own files and
 * its pinned go.mod into .flowport/ (gitignored), in a folder named by the hash of those files, so a
 * second run finds it at once and an edit builds anew; then run on a task queue of the test's own,
 * its catalog file published under that id with `flowport catalog publish`, as a user would. Go
 * missing fails the test; it never skips it. scripts/test.ts builds it before the tests start.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'
import type { Test } from 'tap'
import { isExecutable } from '../../cli/temporal-binary.js'
import { startForeignWorker, type ForeignWorker } from './foreign-worker.js'

export const GO_WORKER_DIR = resolve('examples/go-worker')

const run = promisify(execFile)

/** The files the binary is built from: its hash names the build. */
const sources = () => readdirSync(GO_WORKER_DIR).filter((f) => f.endsWith('.go') || f === 'go.mod' || f === 'go.sum').sort()

export function goWorkerPath (): string {
  const hash = createHash('sha256')
  for (const file of sources()) hash.update(file).update('\0').update(readFileSync(join(GO_WORKER_DIR, file))).update('\0')
  return resolve('.flowport', `go-worker-${hash.digest('hex').slice(0, 12)}`, 'go-worker')
}

/**
 * The worker's binary, built first when missing (minutes on a cold machine: the SDK's modules come
 * from the Go module proxy). Built beside its place and renamed into it, so an interrupted build is
 * never used. GOFLAGS=-mod=mod: go.mod pins the SDK, and go.sum is completed if it lacks a line.
 */
export async function goWorkerBinary (log: (message: string) => void = () => {}): Promise<{ path: string, source: 'cache' | 'built', buildMs: number }> {
  const path = goWorkerPath()
  if (isExecutable(path)) return { path, source: 'cache', buildMs: 0 }
  const partial = `${path}.partial-${process.pid}`
  log(`building the Go worker into ${path} (first time only; minutes on a cold machine)`)
  const began = Date.now()
  mkdirSync(dirname(path), { recursive: true })
  try {
    await run('go', ['build', '-trimpath', '-o', partial, '.'], {
      cwd: GO_WORKER_DIR,
      timeout: 1_800_000,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', CGO_ENABLED: '0' }
    })
  } catch (err) {
    rmSync(partial, { force: true })
    const { stderr } = err as { stderr?: string }
    throw new Error(`Could not build the Go worker (go build in ${GO_WORKER_DIR}; needs Go on PATH): ${(stderr ?? (err as Error).message).trim().split('\n').slice(-5).join('\n')}`)
  }
  renameSync(partial, path)
  const buildMs = Date.now() - began
  log(`built the Go worker in ${Math.round(buildMs / 1000)} s`)
  return { path, source: 'built', buildMs }
}

export type GoWorker = ForeignWorker

/** Starts the Go worker on `taskQueue` and publishes the example's catalog file under that id (./foreign-worker.ts). */
export async function startGoWorker (t: Test, taskQueue: string): Promise<GoWorker> {
  const { path, source, buildMs } = await goWorkerBinary((m) => { t.comment(m) })
  t.comment(`go worker binary: ${source}${source === 'built' ? ` in ${buildMs} ms` : ''}`)
  return await startForeignWorker(t, taskQueue, { language: 'Go', command: path, dir: GO_WORKER_DIR, taskQueueVariable: 'GO_WORKER_TASK_QUEUE' })
}
