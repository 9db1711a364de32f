/**
 * The production entry: settings from the environment (a bad value names its variable) and a
 * process that publishes its catalog, then stops cleanly on SIGTERM.
 */
import t from 'tap'
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { readWorkerEnv, workerOptionsFromEnv, WorkerConfigError } from '../src/env.js'
import { catalogWorkflowId, type Catalog } from '@flowport/core/contract'
import { connectClient, endCatalog, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, uniqueCatalog } from './helpers/engine.js'
import { fixture } from './helpers/fixtures.js'

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url))
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href

t.test('defaults and conversions', async (t) => {
  const env = readWorkerEnv({})
  t.equal(env.TEMPORAL_ADDRESS, 'localhost:7233')
  t.equal(env.TEMPORAL_NAMESPACE, 'default')
  t.equal(env.SERVICE_CATALOG_ID, 'main')
  t.same([
    env.ENGINE_MAX_CONCURRENT_ACTIVITY_TASK_EXECUTIONS, env.ENGINE_MAX_CONCURRENT_WORKFLOW_TASK_EXECUTIONS, env.ENGINE_MAX_CACHED_WORKFLOWS,
    env.ENGINE_MAX_CONCURRENT_ACTIVITY_TASK_POLLS, env.ENGINE_MAX_CONCURRENT_WORKFLOW_TASK_POLLS, env.ENGINE_SHUTDOWN_GRACE_MS
  ], [100, 40, 1000, 10, 10, 10000])
  t.same([env.SERVICE_TRACE_LOCAL_RETENTION_MS, env.SERVICE_TRACE_WRITE_QUEUE_MAX], [7 * 86_400_000, 1000], 'local traces kept a week; at most 1000 attempt records waiting')
  t.doesNotThrow(() => readWorkerEnv({ SERVICE_TRACE_LOCAL_RETENTION_MS: '0' }), 'retention 0 keeps local traces')
  t.equal(workerOptionsFromEnv(env).errorHookTimeoutMs, 10_000, 'onError hooks get 10 s')
  t.equal(workerOptionsFromEnv(readWorkerEnv({ SERVICE_WORKER_ERROR_HOOK_TIMEOUT_MS: '500' })).errorHookTimeoutMs, 500)

  const options = workerOptionsFromEnv(readWorkerEnv({ ENGINE_MAX_CACHED_WORKFLOWS: '0', TEMPORAL_API_KEY: 'secret', SERVICE_CATALOG_ID: 'other' }))
  t.equal(options.engine?.maxCachedWorkflows, 0)
  t.equal(options.catalogId, 'other')
  t.ok(options.tls, 'an API key implies TLS')
  t.notOk(workerOptionsFromEnv(readWorkerEnv({})).tls, 'no TLS by default')
})

t.test('a bad value stops with a message naming the variable', async (t) => {
  const cases = [
    [{ ENGINE_MAX_CACHED_WORKFLOWS: 'lots' }, /^Invalid setting ENGINE_MAX_CACHED_WORKFLOWS="lots": Expected integer/],
    [{ ENGINE_MAX_CONCURRENT_WORKFLOW_TASK_POLLS: '1' }, /^Invalid setting ENGINE_MAX_CONCURRENT_WORKFLOW_TASK_POLLS="1"/],
    [{ ENGINE_MAX_CONCURRENT_ACTIVITY_TASK_EXECUTIONS: '4', ENGINE_MAX_CONCURRENT_ACTIVITY_TASK_POLLS: '8' }, /^Invalid setting ENGINE_MAX_CONCURRENT_ACTIVITY_TASK_POLLS=8: must not exceed ENGINE_MAX_CONCURRENT_ACTIVITY_TASK_EXECUTIONS/],
    [{ TEMPORAL_TLS: 'maybe' }, /^Invalid setting TEMPORAL_TLS="maybe"/],
    [{ SERVICE_TRACE_LOCAL_RETENTION_MS: '3600000' }, /^Invalid setting SERVICE_TRACE_LOCAL_RETENTION_MS=3600000: must be 0 \(keep local traces\) or at least SERVICE_TRACE_LOOKBACK_MS \(86400000\)/],
    [{ SERVICE_TRACE_WRITE_QUEUE_MAX: '0' }, /^Invalid setting SERVICE_TRACE_WRITE_QUEUE_MAX="0"/]
  ] as const
  for (const [env, pattern] of cases) t.throws(() => readWorkerEnv(env), { name: WorkerConfigError.name, message: pattern })
})

function run (env: Record<string, string>, cwd: string): { output: () => string, exited: Promise<number | null>, kill: (signal: NodeJS.Signals) => void, waitFor: (text: string) => Promise<void> } {
  const child = spawn(process.execPath, ['--conditions=flowport-source', `--import=${tsx}`, main], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const waiters: Array<{ text: string, done: () => void }> = []
  const collect = (chunk: Buffer): void => {
    output += chunk.toString()
    for (const w of waiters.filter((w) => output.includes(w.text))) w.done()
  }
  child.stdout.on('data', collect)
  child.stderr.on('data', collect)
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => { resolve(code) }))
  return {
    output: () => output,
    exited,
    kill: (signal) => { child.kill(signal) },
    waitFor: async (text) => {
      await Promise.race([
        new Promise<void>((resolve) => { output.includes(text) ? resolve() : waiters.push({ text, done: resolve }) }),
        exited.then((code) => { throw new Error(`worker exited (${String(code)}) before printing "${text}":\n${output}`) })
      ])
    }
  }
}

t.test('an invalid setting makes the process exit 1 with the variable in the message', async (t) => {
  const proc = run({ ENGINE_MAX_CACHED_WORKFLOWS: '-1' }, t.testdir({}))
  t.equal(await proc.exited, 1)
  t.match(proc.output(), 'Invalid setting ENGINE_MAX_CACHED_WORKFLOWS="-1"')
})

t.test('a definition error is logged whole: every problem, not its first line', async (t) => {
  const builtin = (name: string) => `import { existsSync } from 'node:fs'
import { Type } from '@sinclair/typebox'
import { defineWorkflow } from '@flowport/worker/workflow'
export const ${name} = defineWorkflow({ name: '${name}', description: 'Uses a Node built-in.', inputSchema: Type.Object({}), outputSchema: Type.Boolean(), run: () => existsSync('/') })
`
  const dir = t.testdir({ 'index.ts': "export { first } from './first.js'\nexport { second } from './second.js'\n", 'first.ts': builtin('first'), 'second.ts': builtin('second') })
  const proc = run({ SERVICE_WORKFLOWS_DIR: dir, SERVICE_CATALOG_ID: uniqueCatalog('undefined') }, dir)
  t.equal(await proc.exited, 1)
  t.match(proc.output(), /first\.ts imports the Node built-in 'fs'/)
  t.match(proc.output(), /second\.ts imports the Node built-in 'fs'/, 'the second problem too')
})

t.test('the worker process publishes its catalog and stops cleanly on SIGTERM', async (t) => {
  const client = await connectClient(t)
  const catalogId = uniqueCatalog('main')
  t.teardown(async () => { await endCatalog(client, catalogId) })
  const proc = run({
    TEMPORAL_ADDRESS,
    TEMPORAL_NAMESPACE,
    SERVICE_CATALOG_ID: catalogId,
    SERVICE_WORKFLOWS_DIR: fixture('catalog-v1')
  }, t.testdir({}))
  t.teardown(() => { proc.kill('SIGKILL') })
  await proc.waitFor(`Worker polling catalog ${catalogId}`)
  const catalog = await client.workflow.getHandle(catalogWorkflowId(catalogId)).query<Catalog>('get')
  t.same(catalog.workflows.map((w) => w.name), ['listed'])

  proc.kill('SIGTERM')
  t.equal(await proc.exited, 0, 'exit code 0')
  t.match(proc.output(), 'SIGTERM received, shutting down')
  t.match(proc.output(), 'Worker stopped')
})

t.test('publishing a large catalog, then replacing it, logs no memo-size warning (TMPRL1103)', async (t) => {
  const client = await connectClient(t)
  const catalogId = uniqueCatalog('memo')
  t.teardown(async () => { await endCatalog(client, catalogId) })
  const env = { TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, SERVICE_CATALOG_ID: catalogId }
  // From the repository root the worker finds the examples: a catalog of about 7 KB, well above
  // the 2 KiB at which the SDK warns about a memo.
  const examples = run(env, fileURLToPath(new URL('../..', import.meta.url)))
  t.teardown(() => { examples.kill('SIGKILL') })
  await examples.waitFor(`Worker polling catalog ${catalogId}; catalog published`)
  const large = await client.workflow.getHandle(catalogWorkflowId(catalogId)).query<Catalog>('get')
  t.ok(JSON.stringify(large).length > 4096, 'the catalog is large')
  examples.kill('SIGTERM')
  t.equal(await examples.exited, 0)

  const replacing = run({ ...env, SERVICE_WORKFLOWS_DIR: fixture('catalog-v1') }, t.testdir({}))
  t.teardown(() => { replacing.kill('SIGKILL') })
  await replacing.waitFor(`Worker polling catalog ${catalogId}; catalog replaced`)
  replacing.kill('SIGTERM')
  t.equal(await replacing.exited, 0)

  for (const proc of [examples, replacing]) t.notMatch(proc.output(), 'TMPRL1103')
})
