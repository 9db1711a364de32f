/**
 * `Prefer: wait=<seconds>` on POST /workflow/start (RFC 7240) against the real engine.
 */
import t from 'tap'
import { build } from './helpers/app.js'
import { call, newId } from './helpers/workflows.js'
import { preferences, preferredWait } from '../lib/http/prefer.js'

const startCall = (payload: unknown, prefer?: string) => ({
  method: 'POST' as const, url: '/workflow/start', route: '/workflow/start', payload, headers: prefer === undefined ? undefined : { prefer }
})

t.test('a run that closes within the wait answers 200 with its WorkflowResult', async (t) => {
  const app = await build(t)
  const res = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'Ada' } }, 'wait=30'))
  t.equal(res.status, 200)
  t.equal(res.headers['preference-applied'], 'wait=30')
  t.match(res.headers.vary, /Prefer/)
  t.equal(res.body.status, 'completed')
  t.same(res.body.output, { greeting: 'Hello, Ada!' })
  t.same(res.body.input, { name: 'Ada' })
})

t.test('a run chain is followed to its last run, as /workflow/run does', async (t) => {
  const app = await build(t)
  const res = await call(t, app, startCall({ workflowName: 'relay', input: { hops: 2 } }, 'respond-async, wait=30'))
  t.equal(res.status, 200)
  t.same(res.body.output, { hops: 0 })
})

t.test('a run still open when the wait ends answers 202 with its ids, Location and Retry-After', async (t) => {
  const app = await build(t)
  const workflowId = newId('approval')
  const res = await call(t, app, startCall({ workflowName: 'approval', input: { label: 'wait' }, workflowId }, 'wait=1'))
  t.equal(res.status, 202)
  t.same(Object.keys(res.body).sort(), ['kind', 'runId', 'workflowId'])
  t.equal(res.body.workflowId, workflowId)
  t.equal(res.headers.location, `/workflow/${workflowId}/runs/${res.body.runId as string}/status`)
  t.equal(res.headers['retry-after'], '1')
  t.equal(res.headers['preference-applied'], 'wait=1')
  const status = await call(t, app, { method: 'GET', url: res.headers.location as string, route: '/workflow/{id}/runs/{rid}/status' })
  t.equal(status.body.status, 'running', 'Location names the run')
  await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup')
})

t.test('the wait is capped by SERVICE_RUN_MAX_TIMEOUT_MS', async (t) => {
  const app = await build(t, { SERVICE_RUN_TIMEOUT_MS: '1000', SERVICE_RUN_MAX_TIMEOUT_MS: '1000' })
  const workflowId = newId('approval')
  const res = await call(t, app, startCall({ workflowName: 'approval', input: { label: 'cap' }, workflowId }, 'wait=3600'))
  t.equal(res.status, 202)
  t.equal(res.headers['preference-applied'], 'wait=1')
  await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup')
})

t.test('without a valid wait preference start answers as before', async (t) => {
  const app = await build(t)
  for (const prefer of [undefined, 'respond-async', 'wait=soon', 'wait=-1', 'handling=lenient']) {
    const res = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'x' } }, prefer))
    t.equal(res.status, 200, String(prefer))
    t.same(Object.keys(res.body).sort(), ['kind', 'runId', 'workflowId'], String(prefer))
    t.equal(res.headers['preference-applied'], undefined, String(prefer))
  }
})

t.test('the header grammar: the first wait wins, spaces, quotes and case are allowed', async (t) => {
  t.equal(preferredWait('wait=5'), 5)
  t.equal(preferredWait('respond-async, WAIT = 7'), 7)
  t.equal(preferredWait('wait="3"; x=1, wait=9'), 3)
  t.equal(preferredWait('wait=1.5'), undefined)
  t.equal(preferredWait(undefined), undefined)
})

t.test('respond-async is read from the same header, in one field or several', async (t) => {
  t.same(preferences('respond-async, wait=10'), { respondAsync: true, wait: 10 })
  t.same(preferences(['wait=2', 'Respond-Async']), { respondAsync: true, wait: 2 })
  t.same(preferences('respond-asynchronously'), { respondAsync: false })
  t.same(preferences(undefined), { respondAsync: false })
})
