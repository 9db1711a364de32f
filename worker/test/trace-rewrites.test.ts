/**
 * The trace keeper's rewrites stay bounded while the bucket fails fast (issue 49 item 5): traces
 * whose upload failed wait in a bounded set; the sweeps that follow do not rebuild them from the
 * run's history (neither as rewrites nor because the sweep lists the runs again), and a pass of
 * rewrites stops at the first failure and waits longer after each. Real engine; the bucket is an address nothing listens on (a refused
 * connection: the fast failure of a 403 or expired credentials).
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { Client } from '@temporalio/client'
import { TraceStore, type TraceSettings } from '@flowport/core/trace'
import { TraceKeeper } from '../src/trace/keeper.js'
import { TraceWriteQueue } from '../src/trace/write-queue.js'
import { connectClient, endCatalog, uniqueCatalog } from './helpers/engine.js'
import { recordingLogger } from './helpers/logger.js'

t.test('a failing bucket: the rewrite set is bounded, later sweeps read no history, passes back off', async (t) => {
  const client: Client = await connectClient(t)
  const catalogId = uniqueCatalog('trace-rewrites')
  t.teardown(() => endCatalog(client, catalogId))
  const settings: TraceSettings = {
    dir: t.testdir({}),
    s3: { bucket: 'flowport-traces', prefix: `rewrites-${randomUUID()}/`, region: 'us-east-1', endpoint: 'http://127.0.0.1:9', accessKeyId: 'x', secretAccessKey: 'y' },
    maxValueBytes: 65_536,
    sweepMs: 1000,
    lookbackMs: 60_000,
    localRetentionMs: 0,
    writeQueueMax: 1000
  }
  const store = new TraceStore(settings)
  const logger = recordingLogger()
  const keeper = new TraceKeeper({
    client,
    taskQueue: catalogId,
    store,
    logger,
    isEvaluator: () => false,
    maxRewrites: 2,
    attemptWrites: new TraceWriteQueue({ limit: 10, logger, metrics: null })
  })
  t.teardown(async () => { await keeper.stop(); store.close() })

  // Three closed runs of the catalog (no worker: terminated, their history is the engine's alone).
  for (let i = 0; i < 3; i++) {
    const handle = await client.workflow.start('hello', { taskQueue: catalogId, workflowId: `rewrites-${randomUUID()}`, args: [{ name: 'x' }] })
    await handle.terminate('closed for the test')
  }
  // Visibility lists them a little later.
  for (let i = 0; i < 100; i++) {
    const { count } = await client.workflow.count(`TaskQueue = '${catalogId}' AND ExecutionStatus = 'Terminated'`)
    if (count === 3) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }

  const service = client.workflowService
  const real = service.getWorkflowExecutionHistory.bind(service)
  let historyReads = 0
  service.getWorkflowExecutionHistory = (async (request: Parameters<typeof real>[0]) => {
    historyReads++
    return await real(request)
  }) as typeof service.getWorkflowExecutionHistory
  t.teardown(() => { service.getWorkflowExecutionHistory = real })

  await keeper.sweep()
  t.ok(historyReads >= 3, `the first sweep builds each trace from its history (${historyReads} reads)`)
  t.equal(keeper.rewrites, 2, 'two wait to be written again: the set is bounded')
  t.ok(logger.warnings.some((w) => /traces wait to be written again; more are left marked pending/.test(w)), 'the bound is logged')

  historyReads = 0
  await keeper.sweep()
  await keeper.sweep()
  t.equal(historyReads, 0, 'the sweeps right after read no history: the listed runs wait their turn, the rewrites their backoff')

  // Past the backoff (SERVICE_TRACE_SWEEP_MS at first): one pass, ended by the first upload that fails again.
  await new Promise((resolve) => setTimeout(resolve, 1200))
  const before = logger.warnings.filter((w) => /remote copy could not be written/.test(w)).length
  await keeper.sweep()
  // These runs called no step, so their traces need no attempt records (which live in the failing
  // bucket too): the local copy is complete and is uploaded again as it is, without its history.
  t.equal(historyReads, 0, 'the local copy is sent again, not rebuilt from the history')
  t.equal(logger.warnings.filter((w) => /remote copy could not be written/.test(w)).length - before, 1, 'one try, then the pass stops')
  await keeper.sweep()
  t.equal(logger.warnings.filter((w) => /remote copy could not be written/.test(w)).length - before, 1, 'and the next pass waits longer (twice as long)')
  t.equal(keeper.rewrites, 2, 'the set stays bounded')
})
