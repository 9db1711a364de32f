/**
 * Traces written by workers (docs/traces.md) where one process alone would hide the faults: steps
 * of one run on two workers, a run replayed by another worker after a restart, trace storage that
 * does not answer. Real engine, real S3-compatible server (moto, started by scripts/test.ts).
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import type { Client } from '@temporalio/client'
import { startWorker, type WorkerHandle, type WorkerOptions } from '../src/index.js'
import { TraceStore, type Trace, type TraceSettings } from '../src/trace/index.js'
import { connectClient, endCatalog, eventsOf, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, uniqueCatalog } from './helpers/engine.js'
import { recordingLogger } from './helpers/logger.js'
import { fixture } from './helpers/fixtures.js'

const endpoint = process.env.FLOWPORT_TEST_S3_ENDPOINT
if (!endpoint) throw new Error('FLOWPORT_TEST_S3_ENDPOINT is not set: run the tests with `npm test`, which starts the S3 server')

function settings (t: Test, s3Endpoint: string | null = endpoint!): TraceSettings {
  return {
    dir: t.testdir({}),
    s3: s3Endpoint === null
      ? null
      : {
          bucket: 'flowport-traces',
          prefix: `worker-test-${randomUUID()}/`,
          region: 'us-east-1',
          endpoint: s3Endpoint,
          accessKeyId: process.env.SERVICE_CLOUD_ACCESS_KEY_ID,
          secretAccessKey: process.env.SERVICE_CLOUD_SECRET_ACCESS_KEY
        },
    maxValueBytes: 65_536,
    sweepMs: 200,
    lookbackMs: 60_000
  }
}

let client: Client
t.before(async () => { client = await connectClient(t) })

async function worker (t: Test, catalogId: string, trace: TraceSettings, extra: Partial<WorkerOptions> = {}): Promise<WorkerHandle> {
  const handle = await startWorker({
    address: TEMPORAL_ADDRESS,
    namespace: TEMPORAL_NAMESPACE,
    catalogId,
    packagesFrom: fixture('../../..'), // the repository root: the examples package comes along
    reuseBundle: true,
    shutdownGraceTime: '1s',
    logger: recordingLogger(),
    trace,
    ...extra
  })
  t.teardown(async () => { await handle.shutdown() })
  return handle
}

/** The stored trace, once the keeper has written it. */
async function stored (store: TraceStore, workflowId: string, runId: string): Promise<Trace> {
  for (let i = 0; i < 120; i++) {
    const trace = await store.readRemote(workflowId, runId)
    if (trace !== null) return trace
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`no trace of ${workflowId} run ${runId}`)
}

const start = async (catalogId: string, workflow: string, input: unknown) =>
  await client.workflow.start(workflow, { taskQueue: catalogId, workflowId: `${workflow}-${randomUUID()}`, args: [input] })

t.test('two workers on one catalog: every failed attempt recorded, whichever worker ran it', async (t) => {
  const catalogId = uniqueCatalog('trace-two')
  t.teardown(() => endCatalog(client, catalogId))
  const trace = settings(t)
  await worker(t, catalogId, trace, { identity: 'worker-a' })
  await worker(t, catalogId, trace, { identity: 'worker-b' })
  const store = new TraceStore(trace)
  t.teardown(() => { store.close() })
  // Retries go through the task queue (not eagerly to the worker that ran the workflow task).
  const flaky = await start(catalogId, 'flaky', { failures: 3 })
  await flaky.result()
  const doc = await stored(store, flaky.workflowId, flaky.firstExecutionRunId)
  t.equal(doc.nodes.length, 1, 'one node for the retried step')
  t.same(doc.nodes[0].attempts.map((a) => [a.attempt, a.status]), [[1, 'failed'], [2, 'failed'], [3, 'failed'], [4, 'completed']])
  t.ok(doc.nodes[0].attempts.slice(0, 3).every((a) => a.error?.name === 'TransientError' && a.startTime !== null))
})

t.test('steps of one run on two workers, replayed by the second after the first stops mid-run: nothing lost, nothing twice', async (t) => {
  const catalogId = uniqueCatalog('trace-replay')
  t.teardown(() => endCatalog(client, catalogId))
  const trace = settings(t)
  const store = new TraceStore(trace)
  t.teardown(() => { store.close() })
  const first = await worker(t, catalogId, trace, { identity: 'worker-a' })
  const handle = await start(catalogId, 'sleepy', { steps: 3, delayMs: 1500 })
  // Stop the first worker once the first tick is done and the run waits on its timer.
  for (let i = 0; i < 100 && (await eventsOf(handle, 'activityTaskCompleted')).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
  await first.shutdown()
  await worker(t, catalogId, trace, { identity: 'worker-b' }) // a fresh cache: it replays the history so far, then goes on
  t.same(await handle.result(), { ticks: 3 })
  t.same((await eventsOf(handle, 'activityTaskStarted')).map((e) => String(e.identity)), ['worker-a', 'worker-b', 'worker-b'], 'the steps ran on both workers')
  const doc = await stored(store, handle.workflowId, handle.firstExecutionRunId)
  t.same(doc.nodes.map((n) => [n.name, n.input, n.status]), [1, 2, 3].map((index) => ['tick', { index }, 'completed']))
  t.equal(new Set(doc.nodes.map((n) => n.id)).size, 3)
  t.equal(doc.workflow.status, 'completed')
})

t.test('trace storage down: the run is not affected, the local copy is written, the failure is logged', async (t) => {
  const catalogId = uniqueCatalog('trace-down')
  t.teardown(() => endCatalog(client, catalogId))
  const trace = settings(t, 'http://127.0.0.1:9') // nothing listens there
  const logger = recordingLogger()
  await worker(t, catalogId, trace, { logger })
  const store = new TraceStore({ ...trace, s3: null })
  t.teardown(() => { store.close() })
  const handle = await start(catalogId, 'flaky', { failures: 1 })
  t.same(await handle.result(), { attempts: 2 }, 'the run completes as without tracing')
  let doc: Trace | null = null
  for (let i = 0; i < 120 && doc === null; i++) {
    doc = await store.readLocal(handle.workflowId, handle.firstExecutionRunId)
    if (doc === null) await new Promise((resolve) => setTimeout(resolve, 250))
  }
  t.equal(doc?.workflow.status, 'completed', 'the local copy is written')
  const [first, second] = doc!.nodes[0].attempts
  t.match(first, { attempt: 1, status: 'unknown', error: { name: 'TransientError' } }, 'an attempt that could not be recorded keeps the engine\'s last failure')
  t.equal(second.status, 'completed')
  t.ok(logger.warnings.some((w) => /could not record attempt 1/.test(w)), 'the lost attempt record is logged')
  t.ok(logger.warnings.some((w) => /remote copy could not be written/.test(w)), 'the failed upload is logged')
  t.notOk(existsSync(`${trace.dir}/nothing`), 'sanity: the test dir is private')
})
