import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import { Metadata, status as GrpcStatus } from '@grpc/grpc-js'
// @temporalio/proto is CommonJS: its named exports are not visible to ESM.
import protoRoot from '@temporalio/proto'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, newId, start, waitClosed } from './helpers/workflows.js'

const { HistoryEventFilterType } = protoRoot.temporal.api.enums.v1

const stop = (t: Test, app: App, id: string, rid?: string, body?: unknown) => call(t, app, rid
  ? { method: 'PATCH', url: `/workflow/${id}/runs/${rid}/stop`, route: '/workflow/{id}/runs/{rid}/stop', payload: body }
  : { method: 'PATCH', url: `/workflow/${id}/stop`, route: '/workflow/{id}/stop', payload: body })
const terminate = (t: Test, app: App, id: string, rid?: string, body?: unknown) => call(t, app, rid
  ? { method: 'POST', url: `/workflow/${id}/runs/${rid}/terminate`, route: '/workflow/{id}/runs/{rid}/terminate', payload: body }
  : { method: 'POST', url: `/workflow/${id}/terminate`, route: '/workflow/{id}/terminate', payload: body })

async function activityTypes (app: App, workflowId: string, runId?: string): Promise<string[]> {
  const history = await app.engine.client.workflow.getHandle(workflowId, runId).fetchHistory()
  return (history.events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [])
}

t.test('stop cancels gracefully: the cleanup step runs and the run ends canceled', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'held' })
  const res = await stop(t, app, workflowId)
  t.equal(res.status, 200)
  t.same(res.body, { workflowId, runId, status: 'running', outcome: 'cancel_requested' }, 'answered right after the request')
  t.equal(await waitClosed(app, workflowId), 'CANCELLED')
  t.ok((await activityTypes(app, workflowId)).includes('approval#releaseHold'), 'releaseHold was scheduled')
  const status = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/status`, route: '/workflow/{id}/status' })
  t.equal(status.body.status, 'canceled')
})

t.test('terminate is immediate: no cleanup, the run ends terminated with the reason', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'held' })
  const res = await terminate(t, app, workflowId, undefined, { reason: 'operator said so' })
  t.equal(res.status, 200)
  t.same(res.body, { workflowId, runId, status: 'terminated', reason: 'operator said so' })
  const result = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/result`, route: '/workflow/{id}/result' })
  t.match(result.body, { status: 'terminated', error: /operator said so/ })
  t.notOk((await activityTypes(app, workflowId)).includes('approval#releaseHold'), 'no cleanup ran')

  const other = await start(t, app, 'approval', { label: 'no reason' })
  const bare = await terminate(t, app, other.workflowId)
  t.equal(bare.status, 200, 'the body is optional')
  t.equal(bare.body.reason, null)
})

t.test('stop and terminate of a closed run are 409; of an unknown one 404', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'hello', { name: 'done' })
  await waitClosed(app, workflowId)
  for (const res of [await stop(t, app, workflowId), await stop(t, app, workflowId, runId), await terminate(t, app, workflowId), await terminate(t, app, workflowId, runId)]) {
    t.equal(res.status, 409)
    t.match(res.body, { error: 'WorkflowAlreadyClosedError', workflowId, runId })
  }
  const nobody = newId('nobody')
  for (const res of [await stop(t, app, nobody), await stop(t, app, workflowId, randomUUID()), await terminate(t, app, nobody), await terminate(t, app, workflowId, randomUUID())]) {
    t.equal(res.status, 404)
    t.equal(res.body.error, 'WorkflowNotFoundError')
  }
})

t.test('bodies and run ids are validated', async (t) => {
  const app = await build(t)
  const id = newId('nobody')
  const cases: Array<[string, Promise<{ status: number, body: any }>, string]> = [
    ['bad run id (stop)', stop(t, app, id, 'nope'), '/rid'],
    ['bad run id (terminate)', terminate(t, app, id, 'nope'), '/rid'],
    ['terminateAfterMs 0', stop(t, app, id, undefined, { terminateAfterMs: 0 }), '/terminateAfterMs'],
    ['unknown stop field', stop(t, app, id, undefined, { force: true }), '/force'],
    ['reason too long', terminate(t, app, id, undefined, { reason: 'r'.repeat(1001) }), '/reason']
  ]
  for (const [name, pending, path] of cases) {
    const res = await pending
    t.equal(res.status, 400, name)
    t.equal(res.body.issues[0].path, path, name)
  }
})

t.test('pinned forms act only on their run; the latest form reports the run it acted on', async (t) => {
  const app = await build(t)
  // After continue-as-new the first run is closed: pinned stop/terminate refuse it.
  const relay = await start(t, app, 'relay', { hops: 1 })
  await waitClosed(app, relay.workflowId)
  t.equal((await stop(t, app, relay.workflowId, relay.runId)).status, 409)
  t.equal((await terminate(t, app, relay.workflowId, relay.runId)).status, 409)

  // An id reused after its first run closed: the old run is pinned, the new one runs.
  const first = await start(t, app, 'approval', { label: 'one' })
  await app.engine.client.workflow.getHandle(first.workflowId).terminate('make room')
  const second = await start(t, app, 'approval', { label: 'two' }, first.workflowId)
  t.equal((await stop(t, app, first.workflowId, first.runId)).status, 409, 'the pinned old run is closed')
  t.equal((await terminate(t, app, first.workflowId, first.runId)).status, 409)
  t.equal((await app.engine.client.workflow.getHandle(first.workflowId, second.runId).describe()).status.name, 'RUNNING', 'the newer run was not touched')

  const pinned = await stop(t, app, first.workflowId, second.runId)
  t.same(pinned.body, { workflowId: first.workflowId, runId: second.runId, status: 'running', outcome: 'cancel_requested' })
  t.equal(await waitClosed(app, first.workflowId, second.runId), 'CANCELLED')

  const third = await start(t, app, 'approval', { label: 'three' }, first.workflowId)
  const latest = await terminate(t, app, first.workflowId)
  t.equal(latest.body.runId, third.runId, 'the latest form names the run it terminated')
})

t.test('stop with terminateAfterMs: canceled in time, or terminated at the deadline', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'quick cleanup' })
  const inTime = await stop(t, app, workflowId, runId, { terminateAfterMs: 60_000 })
  t.equal(inTime.status, 200)
  t.same(inTime.body, { workflowId, runId, status: 'canceled', outcome: 'canceled' }, 'the cleanup finished before the deadline')

  // A run whose task queue has no worker cannot act on the cancellation, so the deadline passes.
  const stuckId = newId('stuck')
  const stuck = await app.engine.client.workflow.start('approval', { workflowId: stuckId, taskQueue: `no-worker-${randomUUID()}`, args: [{ label: 'stuck' }] })
  const escalated = await stop(t, app, stuckId, undefined, { terminateAfterMs: 300 })
  t.equal(escalated.status, 200)
  t.same(escalated.body, { workflowId: stuckId, runId: stuck.firstExecutionRunId, status: 'terminated', outcome: 'terminated' })
  const described = await app.engine.client.workflow.getHandle(stuckId).describe()
  t.equal(described.status.name, 'TERMINATED')
})

t.test('a stop whose escalation fails while the run is open answers the failure at once, without a close-event read', async (t) => {
  const app = await build(t)
  // A run whose task queue has no worker cannot act on the cancellation, so the deadline passes.
  const stuckId = newId('stuck')
  await app.engine.client.workflow.start('approval', { workflowId: stuckId, taskQueue: `no-worker-${randomUUID()}`, args: [{ label: 'stuck' }] })
  const handle = app.engine.client.workflow.getHandle(stuckId)
  t.teardown(async () => { await handle.terminate('test over').catch(() => undefined) })

  // The fault: the engine does not answer the escalation's terminate in time; the run stays open.
  const service = app.engine.client.workflowService as unknown as Record<string, (request: Record<string, unknown>) => Promise<unknown>>
  const { terminateWorkflowExecution, getWorkflowExecutionHistory } = service
  t.teardown(() => { Object.assign(service, { terminateWorkflowExecution, getWorkflowExecutionHistory }) })
  service.terminateWorkflowExecution = async () => {
    throw Object.assign(new Error('4 DEADLINE_EXCEEDED: injected'), { code: GrpcStatus.DEADLINE_EXCEEDED, details: 'injected', metadata: new Metadata() })
  }
  // The engine holds a close-event read of an open run until it closes (up to its 20 s long-poll
  // interval, or the call's deadline) even without waitNewEvent: only the stop's own wait may ask.
  const closeEventReads: Array<Record<string, unknown>> = []
  service.getWorkflowExecutionHistory = async (request) => {
    if (request.historyEventFilterType === HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT && request.waitNewEvent !== true) closeEventReads.push(request)
    return await getWorkflowExecutionHistory.call(service, request)
  }

  const res = await stop(t, app, stuckId, undefined, { terminateAfterMs: 300 })
  t.match(res, { status: 503, body: { error: 'EngineUnavailableError' } }, 'the terminate\'s failure')
  t.same(closeEventReads, [], 'no close-event read of the open run')
  t.equal((await handle.describe()).status.name, 'RUNNING', 'the run is still open')
})
