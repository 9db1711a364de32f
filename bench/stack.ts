/**
 * The processes a benchmark runs against: the API in a process of its own (bench/api-process.ts,
 * GC exposed), or a stand-in speaking the same IPC commands (bench/bare-fanout.ts), and the wait
 * for a worker's catalog.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import type { Client } from '@temporalio/client'
import { CATALOG_HASH_MEMO_KEY, catalogWorkflowId } from '@flowport/core/contract'

/** Resolves once a worker has published `catalog` (also the test runner's wait, scripts/test.ts). */
export async function waitForCatalog (client: Client, catalog: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      const { memo } = await client.workflow.getHandle(catalogWorkflowId(catalog)).describe()
      if (memo?.[CATALOG_HASH_MEMO_KEY]) return
    } catch { /* not published yet */ }
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`the worker did not publish catalog ${catalog}`)
}

export interface Api {
  base: string
  pid: number
  call: <T>(cmd: string) => Promise<T>
}

/** Forks `script` (the API by default); resolves once it announces the base URL it listens on. */
export async function startApi (env: NodeJS.ProcessEnv, script = 'bench/api-process.ts'): Promise<{ api: Api, child: ChildProcess }> {
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
