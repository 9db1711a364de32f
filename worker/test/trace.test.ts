/**
 * Traces written by workers (docs/traces.md) where one process alone would hide the faults: steps
 * of one run on two workers, a run replayed by another worker after a restart, trace storage that
 * does not answer. Real engine, real S3-compatible server (moto, started by scripts/test.ts).
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Client } from '@temporalio/client'
import { DeleteObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { startWorker, type WorkerHandle, type WorkerOptions } from '../src/index.js'
import { TraceStore, traceKey, type Trace, type TraceSettings } from '@flowport/core/trace'
import { TraceKeeper } from '../src/trace/keeper.js'
import { TraceWriteQueue } from '../src/trace/write-queue.js'
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
    lookbackMs: 60_000,
    localRetentionMs: 0,
    writeQueueMax: 1000
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
  t.ok(logger.warnings.some((w) => /attempt records are being dropped \(failed: Trace storage/.test(w)), 'the lost attempt record is logged')
  t.ok(logger.warnings.some((w) => /remote copy could not be written/.test(w)), 'the failed upload is logged')
  t.notOk(existsSync(`${trace.dir}/nothing`), 'sanity: the test dir is private')
})

/** A keeper of the catalog as a new worker would have it, swept by the test itself. */
function keeperOf (t: Test, catalogId: string, trace: TraceSettings) {
  const store = new TraceStore(trace)
  const logger = recordingLogger()
  const keeper = new TraceKeeper({
    client,
    taskQueue: catalogId,
    store,
    logger,
    isEvaluator: () => false,
    attemptWrites: new TraceWriteQueue({ limit: 10, logger, metrics: null })
  })
  t.teardown(async () => { await keeper.stop(); store.close() })
  return { keeper, store }
}

function bucketClient (t: Test): S3Client {
  const s3 = new S3Client({
    endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: process.env.SERVICE_CLOUD_ACCESS_KEY_ID!, secretAccessKey: process.env.SERVICE_CLOUD_SECRET_ACCESS_KEY! }
  })
  t.teardown(() => { s3.destroy() })
  return s3
}

t.test('a new worker (empty local directory) leaves a trace the bucket holds alone, and writes one it lacks', async (t) => {
  const catalogId = uniqueCatalog('trace-keeper-new')
  t.teardown(() => endCatalog(client, catalogId))
  const trace = settings(t)
  const first = await worker(t, catalogId, trace)
  const kept = await start(catalogId, 'hello', { name: 'kept' })
  const lost = await start(catalogId, 'hello', { name: 'lost' })
  await kept.result()
  await lost.result()
  const bucket = new TraceStore(trace)
  t.teardown(() => { bucket.close() })
  await stored(bucket, kept.workflowId, kept.firstExecutionRunId)
  await stored(bucket, lost.workflowId, lost.firstExecutionRunId)
  await first.shutdown()

  const s3 = bucketClient(t)
  const object = (run: typeof kept) => ({ Bucket: trace.s3!.bucket, Key: trace.s3!.prefix + traceKey(run.workflowId, run.firstExecutionRunId) })
  await s3.send(new DeleteObjectCommand(object(lost)))
  const before = await s3.send(new HeadObjectCommand(object(kept)))
  // The visibility list is eventually consistent: sweep once it names both runs.
  const query = `TaskQueue = '${catalogId}' AND ExecutionStatus != 'Running'`
  for (let i = 0; i < 120 && (await client.workflow.count(query)).count < 2; i++) await new Promise((resolve) => setTimeout(resolve, 250))
  // LastModified has a resolution of one second: a rewrite now would show.
  await new Promise((resolve) => setTimeout(resolve, 1100))

  const fresh = { ...trace, dir: t.testdir({}) }
  const { keeper, store } = keeperOf(t, catalogId, fresh)
  t.equal(await keeper.sweep(), 1, 'one run written: the one missing from the bucket')
  t.equal(await store.readLocal(kept.workflowId, kept.firstExecutionRunId), null, 'no local copy of a trace the bucket holds')
  const after = await s3.send(new HeadObjectCommand(object(kept)))
  t.same([after.ETag, after.LastModified], [before.ETag, before.LastModified], 'nor is the bucket\'s object rewritten')
  t.equal((await store.readRemote(lost.workflowId, lost.firstExecutionRunId))?.workflow.status, 'completed', 'the missing one is written to the bucket again')
  t.equal(await keeper.sweep(), 0, 'and the next sweep finds nothing left to do')
})

/** The store's calls that reach the bucket (or, without one, the attempts directory), counted on a real store. */
function countingStore (store: TraceStore) {
  const calls = { readRemote: 0, readAttempts: 0, writeTrace: 0 }
  for (const name of Object.keys(calls) as Array<keyof typeof calls>) {
    const real = (store[name] as (...args: unknown[]) => Promise<unknown>).bind(store)
    Object.assign(store, { [name]: async (...args: unknown[]) => { calls[name]++; return await real(...args) } })
  }
  return calls
}

t.test('the trace of a run that closed on this worker: no read of the bucket, and no list of attempt records when every step completed at its first attempt', async (t) => {
  const catalogId = uniqueCatalog('trace-keeper-calls')
  t.teardown(() => endCatalog(client, catalogId))
  const trace = settings(t)
  // A worker that writes no traces: the test's keeper alone does.
  await worker(t, catalogId, trace, { trace: null })
  const { keeper, store } = keeperOf(t, catalogId, trace)
  const calls = countingStore(store)
  const bucket = new TraceStore(trace) // read with a store of its own: its reads are not the keeper's
  t.teardown(() => { bucket.close() })

  const hello = await start(catalogId, 'hello', { name: 'calls' })
  await hello.result()
  keeper.closing(hello.workflowId, hello.firstExecutionRunId)
  t.equal((await stored(bucket, hello.workflowId, hello.firstExecutionRunId)).workflow.status, 'completed', 'the trace is in the bucket')
  t.same(calls, { readRemote: 0, readAttempts: 0, writeTrace: 1 }, 'one write; no bucket copy looked for, no attempt records listed')

  const flaky = await start(catalogId, 'flaky', { failures: 1 })
  await flaky.result()
  keeper.closing(flaky.workflowId, flaky.firstExecutionRunId)
  const doc = await stored(bucket, flaky.workflowId, flaky.firstExecutionRunId)
  t.same(doc.nodes[0].attempts.map((a) => a.attempt), [1, 2], 'a retried step keeps both attempts')
  t.same(calls, { readRemote: 0, readAttempts: 1, writeTrace: 2 }, 'a retried step\'s run has its attempt records listed')

  // Found by a sweep (not closed under this keeper's eyes): the bucket's copy is copied, not rebuilt.
  await keeper.finalize(hello.workflowId, hello.firstExecutionRunId)
  t.same(calls, { readRemote: 1, readAttempts: 1, writeTrace: 3 }, 'a run swept up is looked for in the bucket first')
})

t.test('local retention: files older than SERVICE_TRACE_LOCAL_RETENTION_MS go, with the directories they leave empty; newer ones stay', async (t) => {
  const trace = { ...settings(t, null), localRetentionMs: 3_600_000 }
  const { keeper } = keeperOf(t, uniqueCatalog('trace-retention'), trace)
  const file = (key: string, ageMs: number) => {
    const path = join(trace.dir, key)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, '{}')
    const time = new Date(Date.now() - ageMs)
    utimesSync(path, time, time)
    return path
  }
  const day = 86_400_000
  const old = [
    file('old~0000000000000000/run-a.json', day),
    file('old~0000000000000000/run-a.pending', day),
    file('old~0000000000000000/run-a.attempts/step~0000000000000000.1.json', day)
  ]
  const young = [
    file('mixed~1111111111111111/run-b.json', 60_000),
    file('mixed~1111111111111111/run-b.attempts/step~1111111111111111.1.json', 60_000)
  ]
  const oldNextToYoung = file('mixed~1111111111111111/run-c.json', 2 * 3_600_000)
  await keeper.applyRetention()
  for (const path of [...old, oldNextToYoung]) t.notOk(existsSync(path), `${path.slice(trace.dir.length)} removed`)
  t.notOk(existsSync(join(trace.dir, 'old~0000000000000000')), 'the emptied directory is removed')
  for (const path of young) t.ok(existsSync(path), `${path.slice(trace.dir.length)} kept`)
  t.ok(existsSync(trace.dir), 'the trace directory itself stays')
})
