/**
 * The processes a benchmark runs against: the API in a process of its own (bench/api-process.ts,
 * GC exposed), or a stand-in speaking the same IPC commands (bench/bare-fanout.ts).
 */
import { fork, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import { stopProcess } from '../cli/supervise.js'

export type Api = Awaited<ReturnType<typeof startApi>>['api']

/** Forks `script` (the API by default); resolves once it announces the base URL it listens on. */
export async function startApi (env: NodeJS.ProcessEnv, script = 'bench/api-process.ts') {
  const child = fork(resolve(script), [], {
    env,
    execArgv: ['--import', 'tsx', '--conditions=flowport-source', '--expose-gc',
      ...(process.env.BENCH_API_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_API_PROFILE}`] : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  let nextId = 0
  const pending = new Map<number, (result: unknown) => void>()
  const base = await new Promise<string>((resolveBase, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
    child.on('message', (message: { ready?: string, id?: number, result?: unknown }) => {
      if (message.ready) resolveBase(message.ready)
      else if (message.id !== undefined) pending.get(message.id)?.(message.result)
    })
  })
  const call = async <T>(cmd: string) => await new Promise<T>((done) => {
    const id = nextId++
    pending.set(id, (r) => { pending.delete(id); done(r as T) })
    child.send({ id, cmd })
  })
  return { api: { base, pid: child.pid ?? 0, call }, child }
}

/** Stops benchmark processes (any already gone is skipped): SIGTERM, then SIGKILL after 10 s. */
export async function stopAll (children: Array<ChildProcess | undefined>): Promise<void> {
  await Promise.all(children.map(async (child) => { if (child) await stopProcess(child, 10_000) }))
}
