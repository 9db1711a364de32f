/**
 * `npm test`: starts one real Temporal dev server and one worker serving the example workflows
 * (and the test-only ones of test/fixtures/workflows) for the whole run (docs/architecture.md, "Tests and tools"), runs tap against them, stops both, and ends with a plain
 * `N passed, N failed` line. Extra arguments go to tap (e.g. a test file).
 */
import { spawn } from 'node:child_process'
import { resolve } from 'node:path'
import { Client, Connection } from '@temporalio/client'
import { CATALOG_HASH_MEMO_KEY, catalogWorkflowId } from '@flowport/worker/contract'
import { startEngine } from '../cli/engine.js'
import { workerNodeArgs } from '../cli/worker-entry.js'

/** The catalog the shared test worker serves; API tests route their runs to it. */
const TEST_CATALOG = 'flowport-e2e'

async function waitForCatalog (address: string, catalogId: string, timeoutMs: number): Promise<void> {
  const connection = await Connection.connect({ address })
  const client = new Client({ connection })
  const deadline = Date.now() + timeoutMs
  try {
    while (Date.now() < deadline) {
      try {
        const { memo } = await client.workflow.getHandle(catalogWorkflowId(catalogId)).describe()
        if (memo?.[CATALOG_HASH_MEMO_KEY]) return
      } catch { /* not published yet */ }
      await new Promise((r) => setTimeout(r, 250))
    }
    throw new Error(`the test worker did not publish catalog ${catalogId} within ${timeoutMs} ms`)
  } finally {
    await connection.close()
  }
}

function summarize (output: string, exitCode: number): string {
  const totals = [...output.matchAll(/^# \{ (total: \d+[^}]*)\}$/gm)].pop()
  if (!totals) return `0 passed, ${exitCode === 0 ? 0 : 1} failed`
  const n = Object.fromEntries([...totals[1].matchAll(/(\w+): (\d+)/g)].map(([, k, v]) => [k, Number(v)]))
  const failed = (n.fail ?? 0) + (exitCode !== 0 && !n.fail ? 1 : 0)
  return `${n.pass ?? 0} passed, ${failed} failed${n.skip ? `, ${n.skip} skipped` : ''}${n.todo ? `, ${n.todo} todo` : ''}`
}

const engine = await startEngine({ log: (m) => console.log(`# engine: ${m}`) })
const env = { ...process.env, TEMPORAL_ADDRESS: engine.address, TEMPORAL_NAMESPACE: engine.namespace, FLOWPORT_TEST_CATALOG: TEST_CATALOG }
const worker = spawn(process.execPath, workerNodeArgs, {
  env: { ...env, SERVICE_CATALOG_ID: TEST_CATALOG, SERVICE_WORKFLOWS_DIR: resolve('test/fixtures/workflows'), LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'inherit', 'inherit']
})
let exitCode = 1
let output = ''
try {
  await waitForCatalog(engine.address, TEST_CATALOG, 120_000)
  const tap = spawn(resolve('node_modules/.bin/tap'), ['--reporter=tap', ...process.argv.slice(2)], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  tap.stdout.on('data', (chunk: Buffer) => { process.stdout.write(chunk); output += chunk.toString() })
  exitCode = await new Promise<number>((done) => tap.on('exit', (code) => done(code ?? 1)))
} catch (err) {
  console.error(err)
} finally {
  worker.kill('SIGTERM')
  await new Promise((done) => (worker.exitCode !== null ? done(null) : worker.once('exit', done)))
  await engine.stop()
}
console.log(summarize(output, exitCode))
process.exit(exitCode)
