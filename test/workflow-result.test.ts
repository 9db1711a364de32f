import t from 'tap'
import { randomUUID } from 'node:crypto'
import { build } from './helpers/app.js'
import { call, eventually, newId, start, waitClosed } from './helpers/workflows.js'

const resultOf = (id: string) => ({ method: 'GET' as const, url: `/workflow/${id}/result`, route: '/workflow/{id}/result' })
const runResultOf = (id: string, rid: string) => ({ method: 'GET' as const, url: `/workflow/${id}/runs/${rid}/result`, route: '/workflow/{id}/runs/{rid}/result' })
const inputOf = (id: string) => ({ method: 'GET' as const, url: `/workflow/${id}/input`, route: '/workflow/{id}/input' })
const runInputOf = (id: string, rid: string) => ({ method: 'GET' as const, url: `/workflow/${id}/runs/${rid}/input`, route: '/workflow/{id}/runs/{rid}/input' })

t.test('result of an open run is a 424 naming the run', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'pending' })
  for (const req of [resultOf(workflowId), runResultOf(workflowId, runId)]) {
    const res = await call(t, app, req)
    t.equal(res.status, 424)
    t.equal(res.body.error, 'WorkflowNotCompletedError')
    t.equal(res.body.workflowId, workflowId)
    t.equal(res.body.runId, runId)
  }
  await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup')
})

t.test('every terminal status has a 200 result', async (t) => {
  const app = await build(t)
  const catalog = process.env.FLOWPORT_TEST_CATALOG as string

  const completed = await start(t, app, 'hello', { name: 'Zoe' })
  const failed = await start(t, app, 'explode', { message: 'kaboom' })
  const canceled = await start(t, app, 'approval', { label: 'to-cancel' })
  const terminated = await start(t, app, 'approval', { label: 'to-terminate' })
  const relay = await start(t, app, 'relay', { hops: 1 })
  // A run timeout can only be set by starting with the Temporal client directly.
  const timedOutId = newId('approval')
  const timedOut = await app.engine.client.workflow.start('approval', { workflowId: timedOutId, taskQueue: catalog, args: [{ label: 'late' }], workflowExecutionTimeout: '1s' })

  t.equal((await call(t, app, { method: 'PATCH', url: `/workflow/${canceled.workflowId}/stop`, route: '/workflow/{id}/stop' })).status, 200)
  t.equal((await call(t, app, { method: 'POST', url: `/workflow/${terminated.workflowId}/terminate`, route: '/workflow/{id}/terminate', payload: { reason: 'no longer needed' } })).status, 200)
  for (const id of [completed, failed, canceled, terminated, relay].map((r) => r.workflowId).concat(timedOutId)) await waitClosed(app, id)

  const expect = async (req: ReturnType<typeof resultOf>, shape: Record<string, unknown>, name: string) => {
    const res = await call(t, app, req)
    t.equal(res.status, 200, name)
    t.match(res.body, shape, name)
    return res.body
  }
  await expect(resultOf(completed.workflowId), { runId: completed.runId, status: 'completed', input: { name: 'Zoe' }, output: { greeting: 'Hello, Zoe!' }, error: null, errorDetails: null, trace: { destinations: { local: /\.json$/ } } }, 'completed')
  await expect(resultOf(failed.workflowId), { status: 'failed', output: null, error: 'kaboom', errorDetails: { name: 'ExplosionError', activityId: 'explode#detonate' } }, 'failed')
  await expect(resultOf(canceled.workflowId), { status: 'canceled', output: null, error: String, errorDetails: { name: 'CanceledFailure', retryable: false, activityId: null, cause: null } }, 'canceled')
  await expect(resultOf(terminated.workflowId), { status: 'terminated', output: null, error: /no longer needed/, errorDetails: { name: 'TerminatedFailure' } }, 'terminated')
  await expect(resultOf(timedOutId), { runId: timedOut.firstExecutionRunId, status: 'timed_out', input: { label: 'late' }, output: null, errorDetails: { name: 'TimeoutFailure' } }, 'timed_out')
  await expect(runResultOf(relay.workflowId, relay.runId), { runId: relay.runId, status: 'continued_as_new', input: { hops: 1 }, output: null, error: null, errorDetails: null }, 'continued_as_new')
})

t.test('after continue-as-new the latest result is the newest run\'s; the pinned one never follows', async (t) => {
  const app = await build(t)
  const first = await start(t, app, 'relay', { hops: 2 })
  await waitClosed(app, first.workflowId)
  // Once its trace is written (the result names the bucket from then on), so that two reads agree.
  const latest = await eventually(async () => await call(t, app, resultOf(first.workflowId)), (res) => res.body.trace?.destinations.remote !== null)
  t.match(latest.body, { status: 'completed', input: { hops: 0 }, output: { hops: 0 } })
  t.not(latest.body.runId, first.runId)
  const pinned = await call(t, app, runResultOf(first.workflowId, first.runId))
  t.match(pinned.body, { runId: first.runId, status: 'continued_as_new', input: { hops: 2 }, output: null })
  const newest = await call(t, app, runResultOf(first.workflowId, latest.body.runId))
  t.same(newest.body, latest.body, 'pinning the newest run gives the same result')
})

t.test('input endpoints return the input of that run', async (t) => {
  const app = await build(t)
  const running = await start(t, app, 'approval', { label: 'in-flight' })
  const open = await call(t, app, inputOf(running.workflowId))
  t.same(open.body, { workflowId: running.workflowId, runId: running.runId, input: { label: 'in-flight' } }, 'also while the run is open')
  await app.engine.client.workflow.getHandle(running.workflowId).terminate('test cleanup')

  const relay = await start(t, app, 'relay', { hops: 1 })
  await waitClosed(app, relay.workflowId)
  const latest = await call(t, app, inputOf(relay.workflowId))
  t.same(latest.body.input, { hops: 0 }, 'the latest form: what the newest run received')
  t.not(latest.body.runId, relay.runId)
  const pinned = await call(t, app, runInputOf(relay.workflowId, relay.runId))
  t.same(pinned.body, { workflowId: relay.workflowId, runId: relay.runId, input: { hops: 1 } })
})

t.test('result and input: 404 for unknown ids and runs, 400 for malformed run ids', async (t) => {
  const app = await build(t)
  const id = newId('nobody')
  for (const req of [resultOf(id), inputOf(id), runResultOf(id, randomUUID()), runInputOf(id, randomUUID())]) {
    const res = await call(t, app, req)
    t.equal(res.status, 404, req.url)
    t.equal(res.body.error, 'WorkflowNotFoundError')
  }
  for (const req of [runResultOf(id, '123'), runInputOf(id, 'zzz')]) {
    const res = await call(t, app, req)
    t.equal(res.status, 400, req.url)
  }
})
