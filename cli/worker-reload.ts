/**
 * `npm start` reloads the worker when the workflow code it loaded changes (the author's loop): it
 * watches the workflow packages of `node_modules` (those flagged `"flowport": {"workflows": true}`,
 * found as the worker finds them) and the local workflows folder, and after a change (debounced)
 * starts a new worker beside the running one. Once the new worker polls, the old one is stopped
 * (its running steps finish within the grace time) and runs in flight go on on the new code: the
 * engine hands their next tasks to the new worker, which replays them. A new worker that does not
 * start (a syntax error, a bad export, any definition error) is logged with its error, and the
 * running worker keeps serving until a change that loads.
 */
import { watch, type FSWatcher } from 'node:fs'
import { existsSync, statSync } from 'node:fs'
import { relative, resolve, sep } from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { findWorkflowPackages } from '@flowport/worker/packages'
import { freePort } from './engine.js'
import type { Supervised } from './supervise.js'

/** Changes closer together than this make one reload (an editor's save is often several writes). */
export const RELOAD_DEBOUNCE_MS = 300

const ERROR_ENTRY = '[flowport] error: '

/** How long a new worker may take to poll before it counts as not started (bundling takes seconds, more on a busy machine). */
const START_TIMEOUT_MS = 180_000

export interface ReloadOptions {
  env: NodeJS.ProcessEnv
  /** The supervised worker: a reload replaces its child. */
  worker: () => Supervised | undefined
  /** Starts a worker process with extra settings, its output piped (forwarded here). */
  start: (extraEnv: NodeJS.ProcessEnv) => ChildProcess
  log: (message: string) => void
}

/** What the worker loads code from: the workflow packages' roots and the local workflows folder, if any. */
export function workflowSources (env: NodeJS.ProcessEnv, cwd = process.cwd()): string[] {
  const roots = findWorkflowPackages(cwd).map((p) => p.root)
  const local = resolve(cwd, env.SERVICE_WORKFLOWS_DIR || 'workflows')
  if (existsSync(local) && statSync(local).isDirectory()) roots.push(local)
  return roots
}

/**
 * Files that are not the package's code: installed dependencies, build output, VCS data, editors'
 * swap files; and eval datasets, which each eval run reads afresh (`flowport eval --save` writes
 * them back, and that is no reason to reload).
 */
const IGNORED = /(^|[\\/])(node_modules|\.git|dist|\.tap|\.flowport|datasets)([\\/]|$)|(~|\.swp|\.swx|\.tsbuildinfo)$|(^|[\\/])\.#/

/**
 * Watches the sources and reloads the worker on a change; returns the function that stops watching.
 * One reload at a time: changes during one make one more afterwards.
 */
export function watchAndReload ({ env, worker, start, log }: ReloadOptions): () => void {
  const watchers: FSWatcher[] = []
  let timer: NodeJS.Timeout | undefined
  let running = false
  let pending: string | undefined
  let stopped = false

  const reload = async (changed: string): Promise<void> => {
    if (running) { pending = changed; return }
    running = true
    try {
      const healthPort = await freePort()
      const next = start({ SERVICE_WORKER_HEALTH_PORT: String(healthPort) })
      const outcome = await untilPolling(next, healthPort)
      if (stopped) { next.kill('SIGTERM'); return }
      const supervised = worker()
      if (outcome.polling && supervised !== undefined) {
        await supervised.replace(next, 15_000)
        log(`worker reloaded (pid ${next.pid}) after a change to ${changed}`)
      } else {
        next.kill('SIGKILL')
        log(`worker not reloaded after a change to ${changed}: ${outcome.polling ? 'the stack is stopping' : outcome.error}; the running worker keeps serving until a change that loads`)
      }
    } catch (err) {
      log(`worker not reloaded after a change to ${changed}: ${(err as Error).message}`)
    } finally {
      running = false
      if (pending !== undefined && !stopped) {
        const again = pending
        pending = undefined
        void reload(again)
      }
    }
  }

  for (const root of workflowSources(env)) {
    try {
      watchers.push(watch(root, { recursive: true }, (_event, file) => {
        const name = file === null ? '' : String(file)
        if (IGNORED.test(name)) return
        clearTimeout(timer)
        timer = setTimeout(() => { void reload(relative(process.cwd(), resolve(root, name)).split(sep).join('/')) }, RELOAD_DEBOUNCE_MS)
      }))
    } catch (err) {
      log(`not watching ${root} for changes: ${(err as Error).message}`)
    }
  }
  if (watchers.length > 0) log(`watching ${watchers.length} workflow source${watchers.length === 1 ? '' : 's'} for changes: the worker reloads on a change`)
  return () => {
    stopped = true
    clearTimeout(timer)
    for (const w of watchers) w.close()
  }
}

/**
 * Waits until the new worker polls (its /ready answers 200) or exits; on exit, its error is its
 * last error entry (the worker logs a definition error and exits 1).
 */
async function untilPolling (child: ChildProcess, healthPort: number): Promise<{ polling: true } | { polling: false, error: string }> {
  const lines: string[] = []
  const keep = (chunk: Buffer): void => { lines.push(...chunk.toString().split('\n').filter((l) => l.trim() !== '')); lines.splice(0, Math.max(0, lines.length - 50)) }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exit: { code?: number | null } = {}
  const exited = new Promise<void>((done) => { child.once('exit', (code) => { exit.code = code; done() }) })
  const deadline = Date.now() + START_TIMEOUT_MS
  for (;;) {
    if ('code' in exit || Date.now() >= deadline) break
    const ready = await fetch(`http://127.0.0.1:${healthPort}/ready`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status === 200, () => false)
    if (ready) {
      child.stdout?.off('data', keep)
      child.stderr?.off('data', keep)
      return { polling: true }
    }
    await Promise.race([exited, new Promise((done) => setTimeout(done, 250))])
  }
  const gone = 'code' in exit ? exit.code : undefined
  // The worker's last error entry, with the lines that continue it (a compiler's report spans several).
  // Its entries read `[flowport] error: <message>` (worker/src/common/logger.ts); production's are JSON, not the dev stack's.
  const at = lines.findLastIndex((l) => l.startsWith(ERROR_ENTRY))
  const error = at >= 0 ? lines.slice(at, at + 3).join(' ').slice(ERROR_ENTRY.length) : (lines.at(-1) ?? '')
  if (gone === undefined) {
    child.kill('SIGKILL')
    return { polling: false, error: `the new worker did not poll within ${START_TIMEOUT_MS / 1000} s${error === '' ? '' : ` (${error})`}` }
  }
  return { polling: false, error: error === '' ? `the new worker exited (code ${gone})` : error }
}
