/**
 * Catalogs that do not exist, catalogs nobody serves, and runs nobody polls, against the real
 * engine: a never-published catalog is a 404 naming it; the default catalog before its worker
 * publishes it, or a published catalog without a worker, is a 503 with Retry-After; the catalog,
 * /ready and a run's status say whether a worker polls the task queue.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { status as GrpcStatus } from '@grpc/grpc-js'
import { CATALOG_WORKFLOW_TYPE, catalogWorkflowId, type CatalogWorkflow } from '@flowport/core/contract'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { build, traceEnv } from './helpers/app.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { openSse, type Frame } from './helpers/history.js'
import { publishCatalog, startPolling } from './helpers/poller.js'
import type { RunChange } from '../schemas/runs-feed.js'
import { call, eventually, newId, start } from './helpers/workflows.js'

const unique = (prefix: string) => `${prefix}-${randomUUID()}`

t.test('a catalog nobody ever published is a 404 WorkflowNotFoundError that names it and says how to publish it', async (t) => {
  const app = await build(t)
  const catalog = unique('never')
  const read = await call(t, app, { method: 'GET', url: `/workflow/catalog/${catalog}`, route: '/workflow/catalog/{catalogId}' })
  t.equal(read.status, 404)
  t.equal(read.body.error, 'WorkflowNotFoundError')
  t.match(read.body.message, catalog)
  t.match(read.body.message, `SERVICE_CATALOG_ID=${catalog}`)
  t.notOk(read.headers['retry-after'], 'nothing to wait for')

  const started = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'hello', input: { name: 'Ada' }, catalog } })
  t.equal(started.status, 404)
  t.equal(started.body.error, 'WorkflowNotFoundError')
  t.match(started.body.message, `SERVICE_CATALOG_ID=${catalog}`)
})

t.test('the default catalog before its worker has published it is a 503 CatalogNotAvailableError with Retry-After', async (t) => {
  const catalog = unique('starting')
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  const read = await call(t, app, { method: 'GET', url: '/workflow/catalog', route: '/workflow/catalog' })
  t.equal(read.status, 503)
  t.equal(read.body.error, 'CatalogNotAvailableError')
  t.match(read.body.message, `SERVICE_CATALOG_ID=${catalog}`)
  t.ok(Number(read.headers['retry-after']) > 0)
  const started = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'hello', input: { name: 'Ada' } } })
  t.equal(started.status, 503)
  t.equal(started.body.error, 'CatalogNotAvailableError')
})

t.test('a published catalog without a worker: listed with polling false, starts are 503, /ready says why; a poller turns it around', async (t) => {
  const app = await build(t)
  const catalog = unique('orphan')
  const served = await call(t, app, { method: 'GET', url: '/workflow/catalog', route: '/workflow/catalog' })
  t.match(served.body.workers, { polling: true }, 'the test worker polls the default catalog')
  const hello = served.body.workflows.find((w: CatalogWorkflow) => w.name === 'hello')
  await publishCatalog(app.engine.client, catalog, [hello])

  const read = await call(t, app, { method: 'GET', url: `/workflow/catalog/${catalog}`, route: '/workflow/catalog/{catalogId}' })
  t.equal(read.status, 200)
  t.match(read.body, { catalog, workers: { polling: false, pollers: 0, lastPollTime: null } })

  const started = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'hello', input: { name: 'Ada' }, catalog } })
  t.equal(started.status, 503)
  t.equal(started.body.error, 'CatalogNotAvailableError')
  t.match(started.body.message, /no worker polls/)
  t.match(started.body.message, `SERVICE_CATALOG_ID=${catalog}`)
  t.ok(Number(started.headers['retry-after']) > 0)
  const unknown = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'nope', input: {}, catalog } })
  t.equal(unknown.status, 404, 'a workflow the catalog does not have is still a 404')

  const orphanApp = await build(t, { SERVICE_CATALOG_ID: catalog })
  const ready = await call(t, orphanApp, { method: 'GET', url: '/ready', route: '/ready' })
  t.equal(ready.status, 503)
  t.match(ready.body, { status: 'unavailable', engine: true, catalog: true, workers: false, reason: /No worker polls catalog/ })

  const stopPolling = startPolling(app.engine.client, catalog)
  t.teardown(stopPolling)
  const polled = await eventually(
    async () => await call(t, app, { method: 'GET', url: `/workflow/catalog/${catalog}`, route: '/workflow/catalog/{catalogId}' }),
    (res) => res.body.workers?.polling === true)
  t.match(polled.body.workers, { polling: true, pollers: 1, lastPollTime: String }, 'a poller is seen once it polls')
  const readyNow = await eventually(async () => await call(t, orphanApp, { method: 'GET', url: '/ready', route: '/ready' }), (res) => res.status === 200)
  t.equal(readyNow.status, 200)
  t.match(readyNow.body.catalogs, [], 'catalogs is a list')
  t.ok(readyNow.body.catalogs.some((c: { catalog: string, workers: { polling: boolean } }) => c.catalog === catalog && c.workers.polling),
    'the published catalog is listed with its worker')
})

t.test('a run whose task queue nobody polls says so in its status; one a worker polls, and a closed one, do not', async (t) => {
  const app = await build(t)
  const taskQueue = unique('nobody-polls')
  const stuck = await app.engine.client.workflow.start('hello', { taskQueue, workflowId: newId('stuck'), args: [{ name: 'Ada' }] })
  t.teardown(() => stuck.terminate('test cleanup'))
  const status = await call(t, app, { method: 'GET', url: `/workflow/${stuck.workflowId}/status`, route: '/workflow/{id}/status' })
  t.match(status.body, { status: 'running', catalog: taskQueue, workersPolling: false })

  const served = await start(t, app, 'approval', { label: 'x' })
  t.teardown(() => app.engine.client.workflow.getHandle(served.workflowId).terminate('test cleanup'))
  const running = await call(t, app, { method: 'GET', url: `/workflow/${served.workflowId}/status`, route: '/workflow/{id}/status' })
  t.match(running.body, { status: 'running', workersPolling: true })

  const found = await eventually(async () => await call(t, app, { method: 'GET', url: `/workflow/runs?status=running&catalog=${taskQueue}`, route: '/workflow/runs' }),
    (res) => res.body.runs.length > 0)
  t.equal(found.status, 200)
  t.match(found.body.runs, [{ workflowId: stuck.workflowId, workersPolling: false }], 'the listing says it too')
})

t.test('the task-queue description is cached: polling a status does not add an engine call per request', async (t) => {
  const app = await build(t)
  // Started past the API, so this app has not described the task queue yet.
  const served = await app.engine.client.workflow.start('approval', { taskQueue: testCatalog(), workflowId: newId('cached'), args: [{ label: 'x' }] })
  t.teardown(() => served.terminate('test cleanup'))
  const service = app.engine.client.workflowService
  const describe = service.describeTaskQueue.bind(service)
  let calls = 0
  service.describeTaskQueue = (async (...args: Parameters<typeof describe>) => { calls++; return await describe(...args) }) as typeof service.describeTaskQueue
  t.teardown(() => { service.describeTaskQueue = describe as typeof service.describeTaskQueue })
  const url = `/workflow/${served.workflowId}/status`
  const answers = await Promise.all(Array.from({ length: 5 }, async () => await call(t, app, { method: 'GET', url, route: '/workflow/{id}/status' })))
  t.same(answers.map((a) => a.body.workersPolling), [true, true, true, true, true])
  t.equal(calls, 1, 'five status reads, one task-queue description')
})

t.test('while DescribeTaskQueue fails, status, run lists and the feed answer with workersPolling null and the rest intact; logged once per episode', async (t) => {
  const lines: Array<{ msg: string, catalog?: string }> = []
  const config = loadConfig({
    ...traceEnv(), TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: testCatalog(), LOG_LEVEL: 'info', SERVICE_RUNS_FEED_POLL_MS: '200', SERVICE_RUNS_FEED_DELAY_MS: '500'
  })
  const app = await buildApp({ config, logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  t.teardown(() => app.close())
  const taskQueue = unique('undescribed')
  const open = async () => {
    const handle = await app.engine.client.workflow.start('hello', { taskQueue, workflowId: newId('undescribed'), args: [{ name: 'Ada' }] })
    t.teardown(() => handle.terminate('test cleanup'))
    return handle
  }
  const run = await open()

  // The one engine call that fails: the engine itself cannot be made to fail only this one.
  const service = app.engine.client.workflowService
  const describe = service.describeTaskQueue.bind(service)
  let failing = true
  service.describeTaskQueue = (async (...args: Parameters<typeof describe>) => {
    if (failing) throw Object.assign(new Error('injected DescribeTaskQueue failure'), { code: GrpcStatus.INTERNAL })
    return await describe(...args)
  }) as typeof service.describeTaskQueue
  t.teardown(() => { service.describeTaskQueue = describe as typeof service.describeTaskQueue })
  const logged = (start: string) => lines.filter((l) => l.msg.startsWith(start) && l.catalog === taskQueue).length
  const status = async () => await call(t, app, { method: 'GET', url: `/workflow/${run.workflowId}/status`, route: '/workflow/{id}/status' })

  for (let i = 0; i < 3; i++) {
    const res = await status()
    t.equal(res.status, 200)
    t.match(res.body, { workflowId: run.workflowId, runId: run.firstExecutionRunId, status: 'running', catalog: taskQueue, workersPolling: null })
  }
  const listed = await eventually(async () => await call(t, app, { method: 'GET', url: `/workflow/runs?catalog=${taskQueue}`, route: '/workflow/runs' }),
    (res) => res.status !== 200 || res.body.runs.length > 0)
  t.equal(listed.status, 200)
  t.match(listed.body.runs, [{ workflowId: run.workflowId, status: 'running', workersPolling: null }])
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const feed = await openSse(`${base}/workflow/runs/stream?catalog=${taskQueue}`)
  t.teardown(() => { feed.close() })
  t.equal(feed.statusCode, 200)
  await feed.until((frames) => frames.length > 0)
  const later = await open()
  const startOf = (frames: Frame[]) => frames.map((f) => f.event === 'run' ? JSON.parse(f.data) as RunChange : undefined)
    .find((c) => c?.change === 'started' && c.run.workflowId === later.workflowId)
  t.match(startOf(await feed.until((frames) => startOf(frames) !== undefined || frames.some((f) => f.event === 'server_error'))),
    { run: { workflowId: later.workflowId, status: 'running', workersPolling: null } }, 'the feed carries the start')
  t.equal(logged('cannot describe the task queue'), 1, 'five answers, one warning')

  failing = false
  // A failure is remembered for a few seconds (null at once meanwhile), then the engine is asked again.
  t.match((await eventually(status, (res) => res.body.workersPolling !== null)).body, { workersPolling: false }, 'known again once the engine answers')
  t.equal(logged('task queue described again'), 1)
  failing = true
  // Once the cached answer has expired, the next failure starts a new episode.
  const again = await eventually(status, (res) => res.body.workersPolling === null)
  t.equal(again.body.workersPolling, null)
  t.equal(logged('cannot describe the task queue'), 2, 'a new episode is logged again')
})

t.test('two reads of a catalog on a cold cache share one engine call; the first reader leaving does not fail the other', async (t) => {
  const app = await build(t)
  const { misses, hits } = app.catalogs.cacheStats.catalog
  const leaving = new AbortController()
  const first = app.catalogs.get(testCatalog(), leaving.signal)
  const second = app.catalogs.get(testCatalog())
  leaving.abort()
  await t.rejects(first, { name: 'AbortError' }, 'the reader that left stops waiting')
  const catalog = await second
  t.ok(catalog.workflows.some((w) => w.name === 'hello'), 'the other gets the catalog')
  t.same(app.catalogs.cacheStats.catalog, { misses: misses + 1, hits: hits + 1 }, 'one engine read for both')
})

t.test('the catalog is read from the current run of the catalog workflow; a run of the older format (catalog in the memo) is not read', async (t) => {
  const app = await build(t)
  const catalog = unique('runs')
  const served = await call(t, app, { method: 'GET', url: '/workflow/catalog', route: '/workflow/catalog' })
  const hello = served.body.workflows.find((w: CatalogWorkflow) => w.name === 'hello')
  await publishCatalog(app.engine.client, catalog, [hello])
  const read = async () => await call(t, app, { method: 'GET', url: `/workflow/catalog/${catalog}`, route: '/workflow/catalog/{catalogId}' })
  const first = await read()
  t.equal(first.status, 200)
  t.same(first.body.workflows.map((w: CatalogWorkflow) => w.name), ['hello'])

  // A new catalog comes with a new run (a worker continues the workflow as new; here: a new start).
  const handle = app.engine.client.workflow.getHandle(catalogWorkflowId(catalog))
  await handle.terminate('replaced')
  await publishCatalog(app.engine.client, catalog, [])
  const next = await eventually(read, (res) => res.status === 200 && res.body.workflows.length === 0)
  t.same(next.body.workflows, [], 'the new run\'s catalog')

  await handle.terminate('replaced by an older worker')
  await app.engine.client.workflow.start(CATALOG_WORKFLOW_TYPE, {
    workflowId: catalogWorkflowId(catalog),
    taskQueue: catalog,
    memo: { catalog: { catalog, publishedAt: new Date().toISOString(), workflows: [hello] }, catalogHash: 'older' }
  })
  const older = await eventually(read, (res) => res.status !== 200)
  t.equal(older.status, 503)
  t.equal(older.body.error, 'CatalogNotAvailableError')
  await handle.terminate('test finished')
})
