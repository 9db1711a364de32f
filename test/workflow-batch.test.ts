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

const batch = (t: Test, app: App, payload: unknown) => call(t, app, { method: 'POST', url: '/workflow/batch', route: '/workflow/batch', payload })
const progress = (t: Test, app: App, batchId: string) => call(t, app, { method: 'GET', url: `/workflow/batch/${batchId}`, route: '/workflow/batch/{batchId}' })

/** `n` open `approval` runs whose ids share a fresh prefix, and the filter that picks exactly them once the run list shows them. */
async function openRuns (t: Test, app: App, n: number) {
  const prefix = `batch-${randomUUID()}-`
  const runs = []
  for (let i = 0; i < n; i++) runs.push(await start(t, app, 'approval', { label: `b${i}` }, `${prefix}${i}`))
  const query = `WorkflowId STARTS_WITH "${prefix}" AND ExecutionStatus = "Running"`
  // The run list is eventually consistent: wait until it shows them all, as a batch must see them.
  await eventually(async () => Number((await app.temporal.workflowService.countWorkflowExecutions({ namespace: app.config.TEMPORAL_NAMESPACE, query })).count), (c) => c === n)
  return { runs, filter: { query } }
}

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

t.test('a batch signal reaches every matched run', async (t) => {
  const app = await build(t)
  const { runs, filter } = await openRuns(t, app, 5)
  const res = await batch(t, app, { action: 'signal', filter, reason: 'approve them all', signal: { name: 'approve', payload: { by: 'batch' } } })
  t.equal(res.status, 202)
  t.match(await finished(t, app, res.body.batchId), { action: 'signal', state: 'completed', completed: 5 })
  for (const run of runs) {
    t.equal(await waitClosed(app, run.workflowId, run.runId), 'COMPLETED')
    t.match(await app.temporal.workflow.getHandle(run.workflowId, run.runId).result(), { approvedBy: 'batch' })
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
    await app.temporal.workflow.getHandle(run.workflowId).terminate('test over')
  }
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
