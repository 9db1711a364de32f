/**
 * Handlers that accept their input and then fail (test/fixtures/workflows/faulty): the API answers
 * 422 with distinct names, and the run goes on. A query no worker can answer, because none took
 * the run's first workflow task, is a 409 that says why.
 */
import t from 'tap'
import { build } from './helpers/app.js'
import { call, newId, start, waitClosed } from './helpers/workflows.js'

t.test('a query whose handler throws is 422 QueryFailedError', async (t) => {
  const app = await build(t)
  const { workflowId } = await start(t, app, 'faulty', {})
  const res = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/query/broken`, route: '/workflow/{id}/query/{query}', payload: {} })
  t.equal(res.status, 422)
  t.match(res.body, { error: 'QueryFailedError', message: /the query handler failed/, workflowId })
  await app.engine.client.workflow.getHandle(workflowId).terminate('test done')
})

t.test('an accepted update whose handler throws is 422 UpdateFailedError, and the run goes on', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'faulty', {})
  const res = await call(t, app, {
    method: 'POST', url: `/workflow/${workflowId}/update/broken`, route: '/workflow/{id}/update/{name}', payload: { payload: { reason: 'disk full' } }
  })
  t.equal(res.status, 422)
  t.match(res.body, { error: 'UpdateFailedError', message: /the update handler failed: disk full/, workflowId, runId })

  const signal = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/signal/finish`, route: '/workflow/{id}/signal/{name}', payload: {} })
  t.equal(signal.status, 200)
  t.equal(await waitClosed(app, workflowId), 'COMPLETED', 'a failed update does not fail the run')
})

t.test('the update payload is still checked against its schema first (400, nothing sent)', async (t) => {
  const app = await build(t)
  const { workflowId } = await start(t, app, 'faulty', {})
  const res = await call(t, app, {
    method: 'POST', url: `/workflow/${workflowId}/update/broken`, route: '/workflow/{id}/update/{name}', payload: { payload: { reason: 5 } }
  })
  t.equal(res.status, 400)
  t.match(res.body, { error: 'ValidationError', issues: [{ in: 'payload', path: '/reason' }] })
  await app.engine.client.workflow.getHandle(workflowId).terminate('test done')
})

t.test('a query before any worker took the first workflow task is a 409: not started yet (startDelay), or closed before it', async (t) => {
  const app = await build(t)
  const workflowId = newId('faulty')
  const started = await call(t, app, {
    method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'faulty', input: {}, workflowId, startDelay: '1h' }
  })
  t.equal(started.status, 200)
  const { runId } = started.body as { runId: string }
  const query = async () => await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/query/broken`, route: '/workflow/{id}/query/{query}', payload: {} })

  const delayed = await query()
  t.equal(delayed.status, 409)
  t.match(delayed.body, { error: 'WorkflowNotStartedError', message: /has not started yet \(a startDelay or a retry's backoff holds its first workflow task\)/, workflowId, runId })

  await app.engine.client.workflow.getHandle(workflowId, runId).terminate('never started')
  const closed = await query()
  t.equal(closed.status, 409)
  t.match(closed.body, { error: 'WorkflowAlreadyClosedError', message: /terminated before a worker took its first workflow task/, workflowId, runId })
})
