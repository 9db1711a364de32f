/**
 * `npm test`: one Temporal dev server, one S3-compatible server with a trace bucket and one worker
 * for the whole run, then tap (extra arguments go to it, e.g. a test file); docs/architecture.md,
 * "Tests and tools". Ends with a plain `N passed, N failed` line.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Client, Connection } from '@temporalio/client'
import { startEngine } from '../cli/engine.js'
import { findTestServerBinary } from '../cli/test-server-binary.js'
import { findObjectStoreBinary } from '../cli/object-store-binary.js'
import { goWorkerBinary } from '../test/helpers/go-worker.js'
import { javaWorkerJar } from '../test/helpers/java-worker.js'
import { workerNodeArgs } from '../cli/worker-entry.js'
import { waitForCatalog } from '../test/helpers/wait-for-catalog.js'
import { createBucket, S3_TEST_CREDENTIALS, startS3Server } from '../test/helpers/s3-server.js'
import { summarize } from './tap-summary.js'

/** The catalog the shared test worker serves; API tests route their runs to it. */
const TEST_CATALOG = 'flowport-e2e'

/** Waits, on a connection of its own, until the shared worker has published its catalog. */
async function waitForTestCatalog (address: string, timeoutMs: number): Promise<void> {
  const connection = await Connection.connect({ address })
  try {
    await waitForCatalog(new Client({ connection }), TEST_CATALOG, timeoutMs)
  } finally {
    await connection.close()
  }
}

/** Whether this run includes a test file: all of them when no file is named. */
const runs = (file: string) => !process.argv.slice(2).some((a) => a.endsWith('.ts')) || process.argv.includes(file)

const [engine, s3, testServer] = await Promise.all([
  startEngine({ log: (m) => console.log(`# engine: ${m}`) }),
  startS3Server((m) => console.log(`# s3: ${m}`)),
  // Workflow tests (@flowport/worker/testing) start their own time-skipping server from this binary.
  findTestServerBinary((m) => console.log(`# test server: ${m}`)),
  // The dev stack's object store (test/dev-stack*.test.ts): built here on a cold machine, so no test waits minutes for it.
  findObjectStoreBinary((m) => console.log(`# store: ${m}`)),
  // The example Go and Java workers (test/go-worker.test.ts, test/java-worker.test.ts), likewise, when their test runs.
  runs('test/go-worker.test.ts') ? goWorkerBinary((m) => console.log(`# go worker: ${m}`)) : undefined,
  runs('test/java-worker.test.ts') ? javaWorkerJar((m) => console.log(`# java worker: ${m}`)) : undefined
])
const TRACE_BUCKET = 'flowport-traces'
await createBucket(s3.endpoint, TRACE_BUCKET)
const traceDir = mkdtempSync(join(tmpdir(), 'flowport-traces-'))
// The tests' API apps read traces with the same settings (test/helpers/app.ts passes them on).
const env = {
  ...process.env,
  TEMPORAL_ADDRESS: engine.address,
  TEMPORAL_NAMESPACE: engine.namespace,
  TEMPORAL_TEST_SERVER_PATH: testServer,
  FLOWPORT_TEST_CATALOG: TEST_CATALOG,
  FLOWPORT_TEST_S3_ENDPOINT: s3.endpoint,
  SERVICE_TRACE_DIR: traceDir,
  SERVICE_TRACE_S3_BUCKET: TRACE_BUCKET,
  // Terminated runs get their trace from the keeper's sweep: a short interval keeps those tests short.
  SERVICE_TRACE_SWEEP_MS: '500',
  SERVICE_CLOUD_ENDPOINT: s3.endpoint,
  ...S3_TEST_CREDENTIALS,
  // The SDK's notice that its 2027 releases need Node 22, once per process: noise in test output.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true'
}
const worker = spawn(process.execPath, workerNodeArgs, {
  env: { ...env, SERVICE_CATALOG_ID: TEST_CATALOG, SERVICE_WORKFLOWS_DIR: resolve('test/fixtures/workflows'), LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'inherit', 'inherit']
})
let exitCode = 1
let output = ''
try {
  await waitForTestCatalog(engine.address, 120_000)
  const tap = spawn(resolve('node_modules/.bin/tap'), ['--reporter=tap', ...process.argv.slice(2)], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  tap.stdout.on('data', (chunk: Buffer) => { process.stdout.write(chunk); output += chunk.toString() })
  exitCode = await new Promise<number>((done) => tap.on('exit', (code) => done(code ?? 1)))
} catch (err) {
  console.error(err)
} finally {
  worker.kill('SIGTERM')
  await new Promise((done) => (worker.exitCode !== null ? done(null) : worker.once('exit', done)))
  await Promise.all([engine.stop(), s3.stop()])
  rmSync(traceDir, { recursive: true, force: true })
}
console.log(summarize(output, exitCode))
process.exit(exitCode)
