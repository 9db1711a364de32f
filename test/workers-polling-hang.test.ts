/**
 * An engine that hangs on DescribeTaskQueue (a run's `workersPolling`) while it answers every other
 * call: status, run lists and the runs feed answer with `workersPolling: null` after
 * SERVICE_WORKERS_POLLING_TIMEOUT_MS, not after the engine call's deadline, and a catalog whose
 * description did not come is not asked again for a while. The API reaches the engine through a
 * proxy that stalls that one gRPC method (test/helpers/grpc-stall-proxy.ts). The engine call
 * deadline is set far beyond the test's own timeout, so an answer that waited for it never comes.
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { traceEnv } from './helpers/app.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { grpcStallProxy } from './helpers/grpc-stall-proxy.js'
import { openSse, type Frame } from './helpers/history.js'
import type { RunChange } from '../schemas/runs-feed.js'
import { call, newId } from './helpers/workflows.js'

const unique = (prefix: string) => `${prefix}-${randomUUID()}`

async function stalledApp (t: Test) {
  const proxy = await grpcStallProxy(t, engineAddress())
  const lines: Array<{ msg: string, catalog?: string }> = []
  const config = loadConfig({
    ...traceEnv(),
    TEMPORAL_ADDRESS: proxy.address,
    SERVICE_CATALOG_ID: testCatalog(),
    LOG_LEVEL: 'info',
    // An answer that waits for the engine call's deadline outlasts the test.
    SERVICE_ENGINE_CALL_TIMEOUT_MS: '600000',
    SERVICE_WORKERS_POLLING_TIMEOUT_MS: '1000',
    SERVICE_RUNS_FEED_POLL_MS: '200',
    SERVICE_RUNS_FEED_DELAY_MS: '500'
  })
  const app = await buildApp({ config, logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  t.teardown(() => app.close())
  /** An open run on a task queue of its own (no worker: nothing runs it). */
  const open = async (workflowType: string, taskQueue = unique('stalled')) => {
    const handle = await app.engine.client.workflow.start(workflowType, { taskQueue, workflowId: newId('stalled'), args: [] })
    t.teardown(() => handle.terminate('test cleanup'))
    return handle
  }
  return { app, proxy, lines, open }
}

t.test('a DescribeTaskQueue that hangs: status answers workersPolling null after the polling deadline, and the catalog is not asked again for a while', async (t) => {
  const { app, proxy, lines, open } = await stalledApp(t)
  const run = await open('hello')
  proxy.stall(['DescribeTaskQueue'])
  const status = async () => await call(t, app, { method: 'GET', url: `/workflow/${run.workflowId}/status`, route: '/workflow/{id}/status' })

  for (let i = 0; i < 4; i++) {
    const res = await status()
    t.equal(res.status, 200)
    t.match(res.body, { workflowId: run.workflowId, status: 'running', workersPolling: null })
  }
  t.equal(proxy.stalled.length, 1, 'four status reads, one DescribeTaskQueue (hanging): the failure is remembered')
  t.match(lines.filter((l) => l.msg.startsWith('cannot describe the task queue')),
    [{ msg: /did not answer DescribeTaskQueue within 1000 ms \(SERVICE_WORKERS_POLLING_TIMEOUT_MS\)/ }], 'one warning that names the deadline')
})

t.test('a DescribeTaskQueue that hangs for every catalog: a run list and the runs feed carry many runs of distinct catalogs, each with workersPolling null', async (t) => {
  const { app, proxy, open } = await stalledApp(t)
  const workflowType = unique('stalled-type')
  proxy.stall(['DescribeTaskQueue'])
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const feed = await openSse(`${base}/workflow/runs/stream?workflowName=${workflowType}`)
  t.teardown(() => { feed.close() })
  t.equal(feed.statusCode, 200)
  await feed.until((frames) => frames.length > 0)

  // Six catalogs: six lookups the feed cannot share, each one hanging.
  const runs = await Promise.all(Array.from({ length: 6 }, async () => await open(workflowType)))
  const started = (frames: Frame[]) => frames.flatMap((f) => f.event === 'run' ? [JSON.parse(f.data) as RunChange] : [])
    .filter((c) => c.change === 'started')
  const frames = await feed.until((frames) => started(frames).length === runs.length || frames.some((f) => f.event === 'server_error'))
  t.same(started(frames).map((c) => c.run.workflowId).sort(), runs.map((r) => r.workflowId).sort(), 'every start reaches the feed')
  t.ok(started(frames).every((c) => c.run.workersPolling === null), 'each with workersPolling null')
  t.equal(new Set(proxy.stalled).size, 1, 'only DescribeTaskQueue was stalled')

  const listed = await call(t, app, { method: 'GET', url: `/workflow/runs?workflowName=${workflowType}`, route: '/workflow/runs' })
  t.equal(listed.status, 200)
  t.equal(listed.body.runs.length, runs.length)
  t.ok(listed.body.runs.every((r: { workersPolling: unknown }) => r.workersPolling === null), 'the run list says null for each, at once (remembered)')
})
