/**
 * Batch operations against the real engine's batcher: runs are picked by a visibility query on a
 * workflow-id prefix unique to the test, so runs of other tests are never touched.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, eventually, firstTaskCompleted, start, waitClosed } from './helpers/workflows.js'
import { bearer, keysFile } from './helpers/keys.js'
import { testCatalog } from './helpers/env.js'
import { parseMetrics, total } from './helpers/prometheus.js'
import protoRoot from '@temporalio/proto'

const { BatchOperationState } = protoRoot.temporal.api.enums.v1
/** The engine's batcher: its workflow type and the namespace division its runs are listed in (what StartBatchOperation counts). */
const BATCHER_WORKFLOW_TYPE = 'temporal-sys-batch-workflow'
const BATCHER_DIVISION = 'TemporalBatcher'
import { CATALOG_WORKFLOW_TYPE, WEBHOOK_WORKFLOW_TYPE } from '@flowport/core/contract'
import { EVAL_WORKFLOW_TYPE } from '@flowport/core/eval'

const batchOnce = (t: Test, app: App, payload: unknown) => call(t, app, { method: 'POST', url: '/workflow/batch', route: '/workflow/batch', payload })

/**
 * Starts a batch as a client should: a 429 (the engine still counts the previous test's batch as
 * running: its store lists a batch's end a moment late) is tried again after its Retry-After.
 */
async function batch (t: Test, app: App, payload: unknown) {
  for (let attempt = 1; ; attempt++) {
    const res = await batchOnce(t, app, payload)
    if (res.status !== 429 || attempt === 20) return res
    await new Promise((resolve) => setTimeout(resolve, Number(res.headers['retry-after']) * 1000))
  }
}
const progress = (t: Test, app: App, batchId: string) => call(t, app, { method: 'GET', url: `/workflow/batch/${batchId}`, route: '/workflow/batch/{batchId}' })

/** `n` open `approval` runs whose ids share a fresh prefix, and the filter that picks exactly them once the run list shows them. */
async function openRuns (t: Test, app: App, n: number) {
  const prefix = `batch-${randomUUID()}-`
  const runs = []
  for (let i = 0; i < n; i++) runs.push(await start(t, app, 'approval', { label: `b${i}` }, `${prefix}${i}`))
  const query = `WorkflowId STARTS_WITH "${prefix}" AND ExecutionStatus = "Running"`
  // The run list is eventually consistent: wait until it shows them all, as a batch must see them.
  await eventually(async () => Number((await app.engine.client.workflowService.countWorkflowExecutions({ namespace: app.config.TEMPORAL_NAMESPACE, query })).count), (c) => c === n)
  return { runs, filter: { query } }
}

/**
 * Runs on a task queue of their own that no worker polls (they stay open, untouched by anything
 * else): `approval` runs and one run of each internal type (a catalog, a webhook delivery, an eval run), all
 * with ids of one fresh prefix, once the run list shows them.
 */
async function unpolledRuns (t: Test, app: App, approvals: number) {
  const taskQueue = `batch-queue-${randomUUID()}`
  const prefix = `${taskQueue}-`
  const open = async (type: string, id: string) => {
    const handle = await app.engine.client.workflow.start(type, { taskQueue, workflowId: `${prefix}${id}`, args: [{}] })
    t.teardown(() => handle.terminate('test over').catch(() => undefined))
    return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId }
  }
  const runs = []
  for (let i = 0; i < approvals; i++) runs.push(await open('approval', `a${i}`))
  const internal = [await open(CATALOG_WORKFLOW_TYPE, 'catalog'), await open(WEBHOOK_WORKFLOW_TYPE, 'webhook'), await open(EVAL_WORKFLOW_TYPE, 'eval')]
  const all = `WorkflowId STARTS_WITH "${prefix}"`
  await eventually(async () => Number((await app.engine.client.workflowService.countWorkflowExecutions({ namespace: app.config.TEMPORAL_NAMESPACE, query: all })).count),
    (c) => c === approvals + internal.length)
  return { taskQueue, prefix, runs, internal }
}

const statusName = async (app: App, run: { workflowId: string, runId: string }) =>
  (await app.engine.client.workflow.getHandle(run.workflowId, run.runId).describe()).status.name

const finished = async (t: Test, app: App, batchId: string) =>
  await eventually(async () => (await progress(t, app, batchId)).body, (b) => b.state !== 'running', 240)

t.test('a batch terminate of 20 runs chosen by filter reports 20 completed', async (t) => {
  const app = await build(t)
  const { runs, filter } = await openRuns(t, app, 20)
  const res = await batch(t, app, { action: 'terminate', filter, reason: 'batch test' })
  t.equal(res.status, 202)
  t.match(res.body, { batchId: String, matched: 20 })
  t.equal(res.headers.location, `/workflow/batch/${String(res.body.batchId)}`)
  const done = await finished(t, app, res.body.batchId)
  t.match(done, { batchId: res.body.batchId, action: 'terminate', state: 'completed', total: 20, completed: 20, failed: 0, reason: 'batch test' })
  for (const run of runs) t.equal(await waitClosed(app, run.workflowId, run.runId), 'TERMINATED')
})

t.test('a batch by run-list filters terminates the runs they match and no internal run', async (t) => {
  const app = await build(t)
  const { taskQueue, runs, internal } = await unpolledRuns(t, app, 3)
  const res = await batch(t, app, { action: 'terminate', filter: { catalog: taskQueue, status: 'running' }, reason: 'by filter' })
  t.equal(res.status, 202)
  t.equal(res.body.matched, 3, 'the three approval runs; the internal runs on the same queue are not counted')
  t.match(await finished(t, app, res.body.batchId), { action: 'terminate', state: 'completed', total: 3, completed: 3, failed: 0 })
  for (const run of runs) t.equal(await waitClosed(app, run.workflowId, run.runId), 'TERMINATED')
  for (const run of internal) t.equal(await statusName(app, run), 'RUNNING', `${run.workflowId} is untouched`)
})

t.test('a raw query cannot escape the group its narrowing is joined to: such queries are a 400, nothing is started', async (t) => {
  const app = await build(t)
  const { prefix, runs, internal } = await unpolledRuns(t, app, 1)
  const mine = `WorkflowId STARTS_WITH "${prefix}"`
  // `(<query>) AND <narrowing>`: AND binds tighter than OR, so a query that closes its group
  // early puts what it names first out of the narrowing's reach.
  const hostile = [
    `${mine}) OR (WorkflowId = "none"`,
    `${mine}) OR (WorkflowId = 'none'`,
    `${mine} AND WorkflowId != "x\\") OR (WorkflowId = "none"`,
    `${mine} -- the narrowing would be a comment`,
    `${mine} /* the narrowing would be a comment */`,
    `${mine} # a comment`,
    `(${mine}`,
    `${mine}; SELECT 1`
  ]
  for (const query of hostile) {
    const res = await batch(t, app, { action: 'terminate', filter: { query }, reason: 'escape attempt' })
    t.equal(res.status, 400, query)
    t.match(res.body, { error: 'ValidationError', issues: [{ path: '/filter/query', in: 'body', message: String }] }, query)
  }

  // Parentheses, quotes and escaped quotes inside literals are the query's own: it is accepted,
  // and the narrowing still holds (the internal runs it also names are left out).
  const literals = `${mine} AND WorkflowId != "a) OR (b" AND WorkflowId != "c\\") OR (\\"d" AND WorkflowId != 'e'') OR (''f'`
  const res = await batch(t, app, { action: 'terminate', filter: { query: literals }, reason: 'literals' })
  t.equal(res.status, 202)
  t.equal(res.body.matched, 1, 'the approval run only')
  t.match(await finished(t, app, res.body.batchId), { state: 'completed', total: 1, completed: 1 })
  t.equal(await waitClosed(app, runs[0]!.workflowId, runs[0]!.runId), 'TERMINATED')
  for (const run of internal) t.equal(await statusName(app, run), 'RUNNING', `${run.workflowId} is untouched`)
})

t.test('a batch signal reaches every matched run', async (t) => {
  const app = await build(t)
  const { runs, filter } = await openRuns(t, app, 5)
  const res = await batch(t, app, { action: 'signal', filter, reason: 'approve them all', signal: { name: 'approve', payload: { by: 'batch' } } })
  t.equal(res.status, 202)
  t.match(await finished(t, app, res.body.batchId), { action: 'signal', state: 'completed', completed: 5 })
  for (const run of runs) {
    t.equal(await waitClosed(app, run.workflowId, run.runId), 'COMPLETED')
    t.match(await app.engine.client.workflow.getHandle(run.workflowId, run.runId).result(), { approvedBy: 'batch' })
  }
})

t.test('a filter that matches nothing says so; a batch is stopped with DELETE; unknown batches are 404', async (t) => {
  const app = await build(t)
  const none = await batch(t, app, { action: 'stop', filter: { workflowName: `nothing-${randomUUID()}` }, reason: 'nothing to do' })
  t.equal(none.status, 202)
  t.equal(none.body.matched, 0)
  t.match(await finished(t, app, none.body.batchId), { action: 'stop', state: 'completed', total: 0, completed: 0 })

  const stopped = await call(t, app, { method: 'DELETE', url: `/workflow/batch/${String(none.body.batchId)}`, route: '/workflow/batch/{batchId}' })
  t.equal(stopped.status, 200, 'stopping a finished batch answers where it stands')
  t.equal(stopped.body.state, 'completed')

  const unknown = await progress(t, app, randomUUID())
  t.equal(unknown.status, 404)
  t.equal(unknown.body.error, 'BatchNotFoundError')
  t.equal((await progress(t, app, 'not-a-batch-id')).status, 400, 'an id this API could not have issued is refused before the engine')

  const noSignal = await batch(t, app, { action: 'signal', filter: {}, reason: 'x' })
  t.equal(noSignal.status, 400)
  t.match(noSignal.body.issues, [{ path: '/signal' }])
  const badQuery = await batch(t, app, { action: 'terminate', filter: { query: 'WorkflowId ==== nonsense' }, reason: 'x' })
  t.equal(badQuery.status, 400)
  t.match(badQuery.body.issues, [{ path: '/filter/query' }])
  const reserved = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'hello', workflowId: 'batch', input: { name: 'x' } } })
  t.equal(reserved.status, 400, 'the id "batch" is reserved')
})

t.test('a batch reset from the start reruns every matched run', async (t) => {
  const app = await build(t)
  const { runs, filter } = await openRuns(t, app, 3)
  for (const run of runs) t.ok(await firstTaskCompleted(app, run.workflowId, run.runId), 'a reset from the start needs a completed workflow task')
  const res = await batch(t, app, { action: 'reset', filter, reason: 'start over', reset: { from: 'start' } })
  t.equal(res.status, 202)
  t.match(await finished(t, app, res.body.batchId), { action: 'reset', state: 'completed', completed: 3 })
  for (const run of runs) {
    const status = await call(t, app, { method: 'GET', url: `/workflow/${run.workflowId}/runs/${run.runId}/status`, route: '/workflow/{id}/runs/{rid}/status' })
    t.match(status.body, { status: 'terminated', resetTo: String })
    await app.engine.client.workflow.getHandle(run.workflowId).terminate('test over')
  }
})

t.test('a batch started while another runs is the engine\'s refusal, a 429 with Retry-After (not retried to a 503); the running one can be stopped through the API', async (t) => {
  const app = await build(t)
  const { filter } = await openRuns(t, app, 2)
  const namespace = app.config.TEMPORAL_NAMESPACE
  // The dev server's batcher acts on every run of a page at once and reads no rate below one page a
  // second (docs/batch.md): no real batch surely runs long enough. The engine counts the running
  // batches in its visibility store, as the runs of the batcher's workflow type in its namespace
  // division: a run of that type on a task queue no worker polls is a batch that runs until stopped.
  const jobId = randomUUID()
  await app.engine.client.workflow.start(BATCHER_WORKFLOW_TYPE, {
    taskQueue: `no-batcher-${jobId}`, workflowId: jobId, args: [], searchAttributes: { TemporalNamespaceDivision: [BATCHER_DIVISION] }
  })
  t.teardown(async () => { await app.engine.client.workflow.getHandle(jobId).terminate('test over').catch(() => undefined) })
  // The store lists a run a moment after it starts: once it lists this one as running, a second batch is refused.
  const listed = await eventually(async () => (await app.engine.client.workflowService.listBatchOperations({ namespace, pageSize: 100 })).operationInfo ?? [],
    (ops) => ops.some((op) => op.jobId === jobId && op.state === BatchOperationState.BATCH_OPERATION_STATE_RUNNING), 240)
  t.ok(listed.some((op) => op.jobId === jobId), 'the engine lists the batch as running')
  const listsBefore = total(parseMetrics((await app.inject({ method: 'GET', url: '/metrics' })).body), 'flowport_engine_call_duration_seconds_count', { method: 'ListBatchOperations' })
  const refused = await batchOnce(t, app, { action: 'terminate', filter, reason: 'second batch' })
  t.equal(refused.status, 429)
  t.match(refused.body, { error: 'RateLimitedError', message: /as many batches as it runs at once/ })
  t.match(refused.headers['retry-after'], /^\d+$/)
  const after = parseMetrics((await app.inject({ method: 'GET', url: '/metrics' })).body)
  t.equal(total(after, 'flowport_engine_call_errors_total', { method: 'StartBatchOperation', code: 'RESOURCE_EXHAUSTED' }), 1,
    'the engine refused the start itself, once: the API asked it rather than guessing from its batch list')
  t.equal(total(after, 'flowport_engine_call_duration_seconds_count', { method: 'ListBatchOperations' }) - listsBefore, 0, 'no batch list was read')
  const stopped = await call(t, app, { method: 'DELETE', url: `/workflow/batch/${jobId}`, route: '/workflow/batch/{batchId}' })
  t.equal(stopped.status, 200, JSON.stringify(stopped.body))
  t.not((await finished(t, app, jobId)).state, 'running', 'the stopped batch ends, so the next batch may start')
})

t.test('batch routes need the control scope and a key without limits; reset needs control', async (t) => {
  const { keys, file } = keysFile(t, [
    { id: 'operator', scopes: ['read', 'interact', 'control'] },
    { id: 'limited', scopes: ['read', 'interact', 'control'], catalogs: [testCatalog()] },
    { id: 'signaller', scopes: ['read', 'interact'] }
  ])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file })
  const as = async (id: string, method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await app.inject({ method, url, headers: bearer(keys[id]!), ...(payload ? { payload } : {}) })
    return { status: res.statusCode, body: res.json() }
  }
  const body = { action: 'signal', filter: { workflowName: `nothing-${randomUUID()}` }, reason: 'access', signal: { name: 'approve', payload: { by: 'x' } } }
  t.equal((await as('operator', 'POST', '/workflow/batch', body)).status, 202)
  const limited = await as('limited', 'POST', '/workflow/batch', body)
  t.equal(limited.status, 403)
  t.match(limited.body, { error: 'ForbiddenError', message: /batch operations need a key without limits/ })
  t.equal((await as('signaller', 'POST', '/workflow/batch', body)).status, 403, 'a batch signal needs control, not only interact')
  t.equal((await as('signaller', 'POST', `/workflow/${randomUUID()}/reset`, {})).status, 403, 'reset needs control')
})
