/**
 * Keeps one child of the dev stack running: when it exits for any reason other than `stop`, it is
 * started again after a backoff (doubling up to 10 s, back to the start after a minute of uptime),
 * and each restart is logged. Stopping sends SIGTERM, then SIGKILL after the grace time.
 */
import type { ChildProcess } from 'node:child_process'
import { rmSync } from 'node:fs'
import { formatMs } from '@flowport/core/duration'

export interface Supervised {
  /** The running child, if any (none while it is being restarted). */
  current: () => ChildProcess | undefined
  stop: (graceMs: number) => Promise<void>
  /**
   * Puts `next`, already started, in the place of the running child, then stops that one (SIGTERM,
   * SIGKILL after the grace time) without restarting it: a reload (cli/worker-reload.ts).
   */
  replace: (next: ChildProcess, graceMs: number) => Promise<void>
}

export interface SuperviseOptions {
  name: string
  /** Starts the child; rejects when it cannot (retried with the same backoff). */
  start: () => Promise<ChildProcess>
  /** Called once a restarted child runs (e.g. to tell what changed). */
  restarted?: (child: ChildProcess) => void
  log: (message: string) => void
}

const MIN_BACKOFF_MS = 500
const MAX_BACKOFF_MS = 10_000
const STABLE_MS = 60_000

export function supervise (first: ChildProcess, { name, start, restarted, log }: SuperviseOptions): Supervised {
  let child: ChildProcess | undefined = first
  let stopping = false
  let backoff = MIN_BACKOFF_MS
  let timer: NodeJS.Timeout | undefined
  /** Children replaced by a newer one: their exit is expected. */
  const retired = new WeakSet<ChildProcess>()

  const watch = (proc: ChildProcess): void => {
    const since = Date.now()
    // Children have their own process groups: if this process dies, nothing else stops them.
    const killOnExit = (): void => { proc.kill('SIGKILL') }
    process.once('exit', killOnExit)
    proc.once('exit', (code, signal) => {
      process.removeListener('exit', killOnExit)
      if (stopping || retired.has(proc)) return
      child = undefined
      if (Date.now() - since > STABLE_MS) backoff = MIN_BACKOFF_MS
      log(`${name} exited (${signal ?? `code ${code}`}); restarting in ${formatMs(backoff)}`)
      schedule()
    })
  }

  const schedule = (): void => {
    timer = setTimeout(() => {
      timer = undefined
      start().then((proc) => {
        if (stopping) { proc.kill('SIGKILL'); return }
        child = proc
        watch(proc)
        log(`${name} restarted (pid ${proc.pid})`)
        restarted?.(proc)
      }, (err: unknown) => {
        if (stopping) return
        log(`${name} did not start (${(err as Error).message.split('\n')[0]}); retrying in ${formatMs(backoff)}`)
        schedule()
      })
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS)
    }, backoff)
  }

  watch(first)
  return {
    current: () => child,
    stop: async (graceMs) => {
      stopping = true
      clearTimeout(timer)
      if (child) await stopProcess(child, graceMs)
    },
    replace: async (next, graceMs) => {
      const old = child
      // A restart that was waiting for its backoff is no longer needed.
      clearTimeout(timer)
      timer = undefined
      child = next
      watch(next)
      if (old !== undefined) {
        retired.add(old)
        await stopProcess(old, graceMs)
      }
    }
  }
}

/** Asks `child` to stop with `signal`, then kills it if it has not exited after `graceMs`. */
export function stopProcess (child: ChildProcess, graceMs: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((done) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs)
    child.once('exit', () => { clearTimeout(force); done() })
    child.kill(signal)
  })
}

/**
 * A server process this one started and owns (`name`: PostgreSQL, the Temporal server,
 * redis-server …): the last `keepChars` of its output are kept for the error when it does not come
 * up, it is killed if this process exits first, and `stop` asks it with `signal` (its own fast
 * shutdown) before SIGKILL after `graceMs`, then removes its folder `dir`, if any.
 */
export function ownServer (child: ChildProcess, name: string, { keepChars = 4000, signal = 'SIGTERM', graceMs = 10_000, dir }: { keepChars?: number, signal?: NodeJS.Signals, graceMs?: number, dir?: string } = {}) {
  let output = ''
  const keep = (chunk: Buffer): void => { output = (output + chunk.toString()).slice(-keepChars) }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const killOnExit = (): void => { child.kill('SIGKILL') }
  process.once('exit', killOnExit)
  /** The exit guard goes with it. */
  const stop = async (): Promise<void> => {
    await stopProcess(child, graceMs, signal)
    process.removeListener('exit', killOnExit)
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  }
  /**
   * Polls `probe` every `everyMs` (a throw counts as not yet) until it holds; when the server exits
   * first or `timeoutMs` passes, stops it and fails with the end of its output.
   */
  const untilServing = async (probe: () => Promise<boolean>, timeoutMs: number, everyMs = 200): Promise<void> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const exited = child.exitCode ?? child.signalCode
      const failure = exited !== null ? `exited (${exited})` : Date.now() >= deadline ? `did not answer within ${timeoutMs} ms` : undefined
      if (failure !== undefined) {
        await stop()
        throw new Error(`${name} ${failure}:\n${output}`)
      }
      if (await probe().catch(() => false)) return
      await new Promise((resolve) => setTimeout(resolve, everyMs))
    }
  }
  return { stop, untilServing }
}

/**
 * npm forwards SIGTERM to the shell it started, and the shell dies without passing it on; the
 * parent's end is how this process learns that it should stop.
 */
export function onParentExit (stop: () => void): void {
  const parent = process.ppid
  const timer = setInterval(() => {
    try {
      process.kill(parent, 0)
    } catch {
      clearInterval(timer)
      stop()
    }
  }, 500)
  timer.unref()
}
