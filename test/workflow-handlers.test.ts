import t from 'tap'
import type { Test } from 'tap'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, newId, start, waitClosed } from './helpers/workflows.js'

const signal = (t: Test, app: App, id: string, name: string, body?: unknown) =>
  call(t, app, { method: 'POST', url: `/workflow/${id}/signal/${name}`, route: '/workflow/{id}/signal/{name}', payload: body })
const query = (t: Test, app: App, id: string, name: string, body?: unknown) =>
  call(t, app, { method: 'POST', url: `/workflow/${id}/query/${name}`, route: '/workflow/{id}/query/{query}', payload: body })
const update = (t: Test, app: App, id: string, name: string, body?: unknown) =>
  call(t, app, { method: 'POST', url: `/workflow/${id}/update/${name}`, route: '/workflow/{id}/update/{name}', payload: body })

t.test('query while waiting, signal, then completion', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'budget' })
  const waiting = await query(t, app, workflowId, 'state')
  t.equal(waiting.status, 200)
  t.same(waiting.body, { workflowId, runId, result: { label: 'budget', approved: false, approvedBy: null } })

  const signaled = await signal(t, app, workflowId, 'approve', { payload: { by: 'ceo' } })
  t.equal(signaled.status, 200)
  t.same(signaled.body, { workflowId, runId })
  await waitClosed(app, workflowId)
  const result = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/result`, route: '/workflow/{id}/result' })
  t.same(result.body.output, { label: 'budget', approvedBy: 'ceo' })

  const closed = await query(t, app, workflowId, 'state')
  t.equal(closed.status, 200, 'a closed run still answers queries')
  t.same(closed.body.result, { label: 'budget', approved: true, approvedBy: 'ceo' })
})

t.test('an accepted update returns its result; a rejected one is a 422', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'old' })
  const accepted = await update(t, app, workflowId, 'relabel', { payload: { label: 'new' } })
  t.equal(accepted.status, 200)
  t.match(accepted.body, { workflowId, runId, updateId: /^[0-9a-f-]{36}$/, result: { previous: 'old' } })
  t.same((await query(t, app, workflowId, 'state')).body.result.label, 'new', 'the update changed the state')

  const rejected = await update(t, app, workflowId, 'relabel', { payload: { label: '   ' } })
  t.equal(rejected.status, 422)
  t.equal(rejected.body.error, 'UpdateRejectedError')
  t.match(rejected.body.message, /label must not be empty/)
  t.equal(rejected.body.workflowId, workflowId)
  t.same((await query(t, app, workflowId, 'state')).body.result.label, 'new', 'a rejected update changed nothing')
  await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup')
})

t.test('payloads are validated against the catalog before reaching the engine', async (t) => {
  const app = await build(t)
  const { workflowId } = await start(t, app, 'approval', { label: 'x' })
  const wrongType = await signal(t, app, workflowId, 'approve', { payload: { by: 5 } })
  t.equal(wrongType.status, 400)
  t.same(wrongType.body.issues, [{ path: '/by', in: 'payload', message: 'must be string' }])
  const missing = await signal(t, app, workflowId, 'approve')
  t.equal(missing.status, 400, 'approve needs a payload')
  t.equal(missing.body.issues[0].in, 'payload')
  const updateBad = await update(t, app, workflowId, 'relabel', { payload: {} })
  t.equal(updateBad.status, 400)
  t.same(updateBad.body.issues, [{ path: '/label', in: 'payload', message: 'must have required property \'label\'' }])
  const unexpected = await query(t, app, workflowId, 'state', { payload: { extra: 1 } })
  t.equal(unexpected.status, 400, 'state takes no payload')
  const bodyBad = await signal(t, app, workflowId, 'approve', { payload: { by: 'x' }, extra: 1 })
  t.equal(bodyBad.status, 400)
  t.equal(bodyBad.body.issues[0].in, 'body')
  const state = await query(t, app, workflowId, 'state')
  t.same(state.body.result, { label: 'x', approved: false, approvedBy: null }, 'no bad payload reached the workflow')
  await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup')
})

t.test('undeclared handler names are 404s of their kind; unknown workflows 404', async (t) => {
  const app = await build(t)
  const { workflowId } = await start(t, app, 'approval', { label: 'x' })
  const s = await signal(t, app, workflowId, 'reject', { payload: {} })
  t.equal(s.status, 404)
  t.equal(s.body.error, 'SignalNotFoundError')
  const q = await query(t, app, workflowId, 'secrets')
  t.equal(q.status, 404)
  t.equal(q.body.error, 'QueryNotFoundError')
  const u = await update(t, app, workflowId, 'approve', { payload: { by: 'x' } })
  t.equal(u.status, 404, 'a signal name is not an update')
  t.equal(u.body.error, 'UpdateNotFoundError')
  await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup')

  const nobody = newId('nobody')
  for (const res of [await signal(t, app, nobody, 'approve', { payload: { by: 'x' } }), await query(t, app, nobody, 'state'), await update(t, app, nobody, 'relabel', { payload: { label: 'y' } })]) {
    t.equal(res.status, 404)
    t.equal(res.body.error, 'WorkflowNotFoundError')
  }
  const tooLong = await signal(t, app, workflowId, 'x'.repeat(1001))
  t.equal(tooLong.status, 400)
  t.equal(tooLong.body.issues[0].path, '/name')
})

t.test('signals and updates to a closed run are 409', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'x' })
  await app.engine.client.workflow.getHandle(workflowId).terminate('closing for the test')
  const s = await signal(t, app, workflowId, 'approve', { payload: { by: 'late' } })
  t.equal(s.status, 409)
  t.match(s.body, { error: 'WorkflowAlreadyClosedError', workflowId, runId })
  const u = await update(t, app, workflowId, 'relabel', { payload: { label: 'late' } })
  t.equal(u.status, 409)
  t.equal(u.body.error, 'WorkflowAlreadyClosedError')
})

t.test('a query pinned to a run answers from that run, not the latest; an unknown run is a 404', async (t) => {
  const app = await build(t)
  const workflowId = newId('pinned-query')
  const older = await start(t, app, 'approval', { label: 'older' }, workflowId)
  const signaled = await signal(t, app, workflowId, 'approve', { payload: { by: 'ceo' } })
  t.equal(signaled.status, 200)
  await waitClosed(app, workflowId)
  const latest = await start(t, app, 'approval', { label: 'latest' }, workflowId)
  t.teardown(async () => { await app.engine.client.workflow.getHandle(workflowId, latest.runId).terminate('test cleanup') })
  const pinned = (rid: string) => call(t, app, { method: 'POST', url: `/workflow/${workflowId}/runs/${rid}/query/state`, route: '/workflow/{id}/runs/{rid}/query/{query}' })

  const answer = await pinned(older.runId)
  t.equal(answer.status, 200)
  t.same(answer.body, { workflowId, runId: older.runId, result: { label: 'older', approved: true, approvedBy: 'ceo' } }, 'the pinned, closed run answered')
  t.match((await query(t, app, workflowId, 'state')).body, { runId: latest.runId, result: { label: 'latest' } }, 'the unpinned route still asks the latest run')
  const unknown = await pinned('00000000-0000-4000-8000-000000000000')
  t.equal(unknown.status, 404)
  t.match(unknown.body, { error: 'WorkflowNotFoundError', runId: '00000000-0000-4000-8000-000000000000' })
})
