/**
 * A worker process of a test's own (the production entry, as `flowport worker` runs it), with its
 * output captured: for tests that need a worker with settings the shared test worker lacks.
 */
import { spawn } from 'node:child_process'
import type { Test } from 'tap'
import { workerNodeArgs } from '../../cli/worker-entry.js'

export interface WorkerProcess {
  /** Everything it printed so far (stdout and stderr). */
  output: () => string
  exited: Promise<number | null>
  /** For signals that do not end it (SIGSTOP, SIGCONT). */
  pid: number
  /** Resolves once the output contains `text`; rejects if the process exits first. */
  waitFor: (text: string) => Promise<void>
  /**
   * Sends `signal` (SIGKILL by default: no shutdown of its own, as when its machine dies; SIGTERM
   * for a graceful shutdown) and resolves with the exit code once it has exited.
   */
  kill: (signal?: NodeJS.Signals) => Promise<number | null>
}

/** Starts the worker in `cwd` with `env` over the test's own environment (`args`: `deliveries` for the delivery worker); SIGKILLed at teardown. */
export function spawnWorker (t: Test, env: Record<string, string>, cwd: string, args: string[] = []): WorkerProcess {
  const child = spawn(process.execPath, [...workerNodeArgs, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const waiters: Array<{ text: string, done: () => void }> = []
  const collect = (chunk: Buffer): void => {
    output += chunk.toString()
    for (const w of waiters.filter((w) => output.includes(w.text))) w.done()
  }
  child.stdout.on('data', collect)
  child.stderr.on('data', collect)
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => { done(code) }))
  t.teardown(() => { child.kill('SIGKILL') })
  return {
    output: () => output,
    exited,
    pid: child.pid!,
    waitFor: async (text) => {
      await Promise.race([
        new Promise<void>((done) => { output.includes(text) ? done() : waiters.push({ text, done }) }),
        exited.then((code) => { throw new Error(`worker exited (${String(code)}) before printing "${text}":\n${output}`) })
      ])
    },
    kill: async (signal = 'SIGKILL') => {
      child.kill(signal)
      return await exited
    }
  }
}
