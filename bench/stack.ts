/**
 * The processes a benchmark runs against: an engine of its own with a worker serving the examples
 * per catalog, and the API in a process of its own (bench/api-process.ts, GC exposed), or a
 * stand-in speaking the same IPC commands (bench/bare-fanout.ts).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import { Client, Connection } from '@temporalio/client'
import { startEngine, type EngineOptions } from '../cli/engine.js'
import { stopProcess } from '../cli/supervise.js'
import { workerNodeArgs } from '../cli/worker-entry.js'
import { waitForCatalog } from '../test/helpers/wait-for-catalog.js'

export type Api = Awaited<ReturnType<typeof startApi>>['api']
export type Stack = Awaited<ReturnType<typeof startStack>>

/** Forks `script` (the API by default); resolves once it announces the base URL it listens on. */
export async function startApi (env: NodeJS.ProcessEnv, script = 'bench/api-process.ts') {
  const child = fork(resolve(script), [], {
    env,
    execArgv: ['--import', 'tsx', '--conditions=flowport-source', '--expose-gc',
      ...(process.env.BENCH_API_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_API_PROFILE}`] : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  const call = ipcCalls(child)
  const base = await new Promise<string>((resolveBase, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
    child.on('message', (message: { ready?: string }) => { if (message.ready) resolveBase(message.ready) })
  })
  return { api: { base, pid: child.pid ?? 0, call }, child }
}

/** `call(cmd)`: a command over `child`'s IPC channel, resolved by the message that answers its id. */
export function ipcCalls (child: ChildProcess) {
  let nextId = 0
  const pending = new Map<number, (result: unknown) => void>()
  child.on('message', (message: { id?: number, result?: unknown }) => { if (message.id !== undefined) pending.get(message.id)?.(message.result) })
  return async <T>(cmd: string) => await new Promise<T>((done) => {
    const id = nextId++
    pending.set(id, (r) => { pending.delete(id); done(r as T) })
    child.send({ id, cmd })
  })
}

/** Stops benchmark processes (any already gone is skipped): SIGTERM, then SIGKILL after 10 s. */
export async function stopAll (children: Array<ChildProcess | undefined>): Promise<void> {
  await Promise.all(children.map(async (child) => { if (child) await stopProcess(child, 10_000) }))
}

export interface StackOptions {
  engine?: EngineOptions
  /** Settings of the worker and API of `catalogs[index]`, on top of the engine's address and `LOG_LEVEL=warn`. */
  env?: (index: number) => NodeJS.ProcessEnv
  /** Settings of the workers only. */
  workerEnv?: NodeJS.ProcessEnv
}

/**
 * An engine of the benchmark's own and one worker per catalog; resolves once every worker has
 * published its catalog. `api(catalog)` starts an API process that `stop()` stops with the rest.
 */
export async function startStack (catalogs: string[], options: StackOptions = {}) {
  const engine = await startEngine({ log: (m) => console.log(`engine: ${m}`), ...options.engine })
  const env = (catalog: string): NodeJS.ProcessEnv => ({
    ...process.env,
    TEMPORAL_ADDRESS: engine.address,
    TEMPORAL_NAMESPACE: engine.namespace,
    SERVICE_CATALOG_ID: catalog,
    LOG_LEVEL: 'warn',
    ...options.env?.(catalogs.indexOf(catalog))
  })
  const children: Array<ChildProcess | undefined> = catalogs.map((catalog) =>
    spawn(process.execPath, workerNodeArgs, { env: { ...env(catalog), ...options.workerEnv }, stdio: ['ignore', 'inherit', 'inherit'] }))
  const connection = await Connection.connect({ address: engine.address })
  const client = new Client({ connection, namespace: engine.namespace })
  const stop = async (): Promise<void> => {
    await stopAll(children)
    await connection.close()
    await engine.stop()
  }
  try {
    await Promise.all(catalogs.map(async (catalog) => { await waitForCatalog(client, catalog) }))
  } catch (err) {
    await stop()
    throw err
  }
  const api = async (catalog: string, extra: NodeJS.ProcessEnv = {}, script?: string) => {
    const started = await startApi({ ...env(catalog), ...extra }, script)
    children.push(started.child)
    return started
  }
  return { engine, env, client, children, api, stop }
}

/** `POST path` with a JSON body; the answer's JSON, or an error naming its status. */
export async function post<T = any> (base: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`POST ${path} answered ${res.status}: ${text}`)
  return JSON.parse(text) as T
}
