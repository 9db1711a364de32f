import t from 'tap'
import { randomUUID } from 'node:crypto'
import { catalogWorkflowId } from '@flowport/core/contract'
import { build } from './helpers/app.js'
import { call, newId, start, waitClosed } from './helpers/workflows.js'

const statusOf = (id: string) => ({ method: 'GET' as const, url: `/workflow/${encodeURIComponent(id)}/status`, route: '/workflow/{id}/status' })
const runStatusOf = (id: string, rid: string) => ({ method: 'GET' as const, url: `/workflow/${encodeURIComponent(id)}/runs/${rid}/status`, route: '/workflow/{id}/runs/{rid}/status' })
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

t.test('status of a closed run: every field, ISO times', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'hello', { name: 'x' })
  await waitClosed(app, workflowId)
  const res = await call(t, app, statusOf(workflowId))
  t.equal(res.status, 200)
  t.match(res.body, {
    workflowId,
    runId,
    workflowName: 'hello',
    catalog: process.env.FLOWPORT_TEST_CATALOG,
    status: 'completed',
    startTime: ISO,
    closeTime: ISO,
    parentWorkflowId: null,
    startedBy: null,
    workersPolling: null,
    scheduleId: null,
    scheduledAt: null,
    delayedUntil: null,
    // The shared test worker is unversioned (test/run-versions.test.ts runs versioned ones).
    version: null,
    versioning: null,
    versioningOverride: null
  })
  t.ok(res.body.historyLength > 0)
  t.same(Object.keys(res.body).sort(), ['attention', 'catalog', 'closeTime', 'delayedUntil', 'historyLength', 'parentWorkflowId', 'resetFrom', 'resetTo', 'runId', 'scheduleId', 'scheduledAt', 'startTime', 'startedBy', 'status', 'version', 'versioning', 'versioningOverride', 'workersPolling', 'workflowId', 'workflowName'])
  const pinned = await call(t, app, runStatusOf(workflowId, runId))
  t.same(pinned.body, res.body, 'the pinned form of the same run')
})

t.test('status of an open run has no closeTime', async (t) => {
  const app = await build(t)
  const { workflowId } = await start(t, app, 'approval', { label: 'x' })
  const res = await call(t, app, statusOf(workflowId))
  t.equal(res.body.status, 'running')
  t.equal(res.body.closeTime, null)
  t.match(res.body.startTime, ISO)
  await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup')
})

t.test('a child workflow names its parent', async (t) => {
  const app = await build(t)
  const { workflowId } = await start(t, app, 'parent', { name: 'kid' })
  await waitClosed(app, workflowId)
  const history = await app.engine.client.workflow.getHandle(workflowId).fetchHistory()
  const childId = history.events?.find((e) => e.childWorkflowExecutionStartedEventAttributes)?.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId
  t.ok(childId, 'the parent started a child')
  const res = await call(t, app, statusOf(childId as string))
  t.equal(res.body.workflowName, 'hello')
  t.equal(res.body.parentWorkflowId, workflowId)
})

t.test('pinned status after continue-as-new: the first run is continued_as_new', async (t) => {
  const app = await build(t)
  const first = await start(t, app, 'relay', { hops: 1 })
  await waitClosed(app, first.workflowId)
  const pinned = await call(t, app, runStatusOf(first.workflowId, first.runId))
  t.equal(pinned.body.status, 'continued_as_new')
  const latest = await call(t, app, statusOf(first.workflowId))
  t.equal(latest.body.status, 'completed')
  t.not(latest.body.runId, first.runId)
})

t.test('unknown ids and runs are 404; malformed run ids and too long ids 400', async (t) => {
  const app = await build(t)
  const unknown = await call(t, app, statusOf(newId('nobody')))
  t.equal(unknown.status, 404)
  t.equal(unknown.body.error, 'WorkflowNotFoundError')
  const { workflowId } = await start(t, app, 'hello', { name: 'x' })
  const unknownRun = await call(t, app, runStatusOf(workflowId, randomUUID()))
  t.equal(unknownRun.status, 404)
  t.equal(unknownRun.body.workflowId, workflowId)
  const badRun = await call(t, app, runStatusOf(workflowId, 'not-a-uuid'))
  t.equal(badRun.status, 400)
  t.same(badRun.body.issues, [{ path: '/rid', in: 'params', message: 'must match format "uuid"' }])
  const tooLong = await call(t, app, statusOf('x'.repeat(1001)))
  t.equal(tooLong.status, 400)
  t.equal(tooLong.body.issues[0].path, '/id')
  const longest = await call(t, app, statusOf('x'.repeat(1000)))
  t.equal(longest.status, 404, '1000 characters is still a valid id')
})

t.test('internal catalog workflows are not visible through the workflow routes', async (t) => {
  const app = await build(t)
  const res = await call(t, app, statusOf(catalogWorkflowId(process.env.FLOWPORT_TEST_CATALOG as string)))
  t.equal(res.status, 404)
})

t.test('/workflow/catalog/... is never read as a workflow id', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/workflow/catalog/status' })
  t.equal(res.statusCode, 404, 'the catalog route answered (no catalog named "status" was ever published)')
  t.equal(res.json().error, 'WorkflowNotFoundError')
  t.match(res.json().message, /Catalog status /)
})
