/**
 * Completion webhooks of runs on a declared catalog (issue 52), served by the real Python worker
 * (examples/python-worker): Flowport's delivery worker (`flowport deliveries`, a process of the
 * test's own) delivers them from DELIVERIES_TASK_QUEUE with the contract of Flowport's own catalogs
 * (docs/webhooks.md): the WorkflowResult, signed, one `webhook-id` across retries, the status's
 * delivery record. A start while no delivery worker polls is kept and delivered once one does;
 * a delivery worker killed while the run is open and started again still delivers, once; of two,
 * one that hangs leaves the delivery to the other.
 */
import t from 'tap'
import type { Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { DELIVERIES_TASK_QUEUE, webhookDeliveryQueue } from '@flowport/core/contract'
import { build } from './helpers/app.js'
import { call, eventually, newId, waitClosed } from './helpers/workflows.js'
import { startPythonWorker, type PythonWorker } from './helpers/python-worker.js'
import { deliveryDone, deliveryIdOf, newSecret, receiver, verified } from './helpers/webhooks.js'
import { spawnWorker } from './helpers/worker-process.js'
import type { App } from '../app.js'

const catalog = `python-hooks-${randomUUID()}`
let python: PythonWorker

t.before(async () => {
  python = await startPythonWorker(t, catalog)
})

/** `flowport deliveries`: the worker's production entry with the argument `deliveries`. */
async function deliveryWorker (t: Test) {
  const worker = spawnWorker(t, { LOG_LEVEL: 'info' }, process.cwd(), ['deliveries'])
  await worker.waitFor(`Delivery worker polling ${DELIVERIES_TASK_QUEUE}`)
  return worker
}

const startHooked = async (t: Test, app: App, workflowName: string, input: unknown, webhook: { url: string, secret: string }) => {
  const res = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { catalog, workflowName, input, workflowId: newId(workflowName), webhook } })
  t.equal(res.status, 200, `started ${workflowName} with a webhook`)
  return res.body as { workflowId: string, runId: string }
}

const statusOf = async (t: Test, app: App, workflowId: string) =>
  (await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/status`, route: '/workflow/{id}/status' })).body

t.test('a start while no delivery worker polls is accepted, kept, and delivered once one polls', async (t) => {
  const logs: string[] = []
  const app = await build(t, {}, logs)
  const hooks = await receiver(t)
  const secret = newSecret()
  const run = await startHooked(t, app, 'greet', { name: 'Ada' }, { url: hooks.url('/later'), secret })
  t.equal(await waitClosed(app, run.workflowId), 'COMPLETED', 'the Python worker ran it')
  const delivery = app.engine.client.workflow.getHandle(await deliveryIdOf(app, run))
  t.equal((await delivery.describe()).taskQueue, DELIVERIES_TASK_QUEUE, 'the delivery waits on Flowport\'s queue, not the catalog\'s')
  t.match((await statusOf(t, app, run.workflowId)).webhook, { state: 'pending', attempts: 0 }, 'the status says it waits')
  t.ok(await eventually(async () => logs, (l) => l.some((line) => line.includes(`No delivery worker polls ${DELIVERIES_TASK_QUEUE}`))) &&
    logs.some((line) => line.includes('flowport deliveries')), 'the API log says no delivery worker polls, and what to start')
  t.equal(hooks.received('/later').length, 0, 'nothing is delivered meanwhile')

  await deliveryWorker(t)
  t.match(await deliveryDone(app, run), { state: 'delivered', attempts: 1, lastResponseStatus: 200 })
  const received = hooks.received('/later')
  t.equal(received.length, 1, 'delivered once')
  const body = verified(t, secret, received[0]!)
  const result = await call(t, app, { method: 'GET', url: `/workflow/${run.workflowId}/result`, route: '/workflow/{id}/result' })
  t.same(body, result.body, 'the body is the run\'s WorkflowResult, as GET …/result answers it, with the catalog file\'s name for the run')
  t.equal(body.workflowName, 'greet')
  t.match(body, { kind: 'result', workflowId: run.workflowId, runId: run.runId, status: 'completed', output: { greeting: 'Hello, Ada!' } })
  t.match((await statusOf(t, app, run.workflowId)).webhook, { url: hooks.url('/later'), state: 'delivered', attempts: 1, lastResponseStatus: 200, lastError: null })
  t.notMatch(python.output(), /__flowport_webhook/, 'the Python worker is never handed the delivery workflow')
})

t.test('a receiver that answers 500 first gets the same delivery again, with the same webhook-id', async (t) => {
  const app = await build(t)
  await deliveryWorker(t)
  const hooks = await receiver(t)
  const secret = newSecret()
  const run = await startHooked(t, app, 'greet', { name: 'Grace' }, { url: hooks.url('/retry', [500]), secret })
  t.match(await deliveryDone(app, run), { state: 'delivered', attempts: 2, lastResponseStatus: 200 })
  const [first, second] = hooks.received('/retry')
  t.equal(hooks.received('/retry').length, 2, 'one failed attempt, one delivered')
  t.equal(first!.answer, 500)
  t.equal(second!.answer, 200)
  t.equal(first!.headers['webhook-id'], second!.headers['webhook-id'], 'one webhook-id for every attempt')
  t.same(verified(t, secret, second!), verified(t, secret, first!), 'the same body, signed each time')
  t.match((await statusOf(t, app, run.workflowId)).webhook, { state: 'delivered', attempts: 2, lastResponseStatus: 200 })
  // The POSTs go out from the delivery queue of Flowport's queue, whose slots are their own.
  const { events } = await app.engine.client.workflow.getHandle(await deliveryIdOf(app, run)).fetchHistory()
  const queues = new Set((events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.taskQueue?.name ?? []))
  t.same([...queues].sort(), [DELIVERIES_TASK_QUEUE, webhookDeliveryQueue(DELIVERIES_TASK_QUEUE)].sort())
})

t.test('a delivery worker killed while the run is open and started again delivers, once', async (t) => {
  const app = await build(t)
  const first = await deliveryWorker(t)
  const hooks = await receiver(t)
  const secret = newSecret()
  const run = await startHooked(t, app, 'order', { item: 'book', quantity: 1 }, { url: hooks.url('/restart'), secret })
  const delivery = app.engine.client.workflow.getHandle(await deliveryIdOf(app, run))
  // The delivery watches the run: its look at the run is scheduled (and retried while the run is open).
  const watching = await eventually(async () => (await delivery.describe()).raw.pendingActivities ?? [], (p) => p.length > 0, 240)
  t.ok(watching.length > 0, 'the delivery worker watches the open run')
  t.equal(await first.kill('SIGKILL'), null, 'the delivery worker is killed, as when its machine dies')

  const approved = await call(t, app, { method: 'POST', url: `/workflow/${run.workflowId}/signal/approve`, route: '/workflow/{id}/signal/{name}', payload: { payload: { by: 'ops' } } })
  t.equal(approved.status, 200)
  t.equal(await waitClosed(app, run.workflowId), 'COMPLETED', 'the run ends while no delivery worker runs')
  t.equal(hooks.received('/restart').length, 0, 'nothing delivered yet')
  t.match((await statusOf(t, app, run.workflowId)).webhook, { state: 'pending', attempts: 0 })

  await deliveryWorker(t)
  t.match(await deliveryDone(app, run), { state: 'delivered', attempts: 1, lastResponseStatus: 200 })
  t.equal(hooks.received('/restart').length, 1, 'delivered once')
  t.match(verified(t, secret, hooks.received('/restart')[0]!), { kind: 'result', workflowId: run.workflowId, runId: run.runId, status: 'completed' })
})

t.test('of two delivery workers, one that hangs (SIGSTOP) while the run is open: the other delivers, once', async (t) => {
  const app = await build(t)
  const [hung] = [await deliveryWorker(t), await deliveryWorker(t)]
  const hooks = await receiver(t)
  const secret = newSecret()
  const run = await startHooked(t, app, 'order', { item: 'pen', quantity: 2 }, { url: hooks.url('/hang'), secret })
  const delivery = app.engine.client.workflow.getHandle(await deliveryIdOf(app, run))
  t.ok((await eventually(async () => (await delivery.describe()).raw.pendingActivities ?? [], (p) => p.length > 0, 240)).length > 0, 'the delivery watches the open run')
  // It may hold the delivery's workflow in its cache, or the look at the run: the engine's timeouts hand them to the other.
  process.kill(hung!.pid, 'SIGSTOP')
  const approved = await call(t, app, { method: 'POST', url: `/workflow/${run.workflowId}/signal/approve`, route: '/workflow/{id}/signal/{name}', payload: { payload: { by: 'ops' } } })
  t.equal(approved.status, 200)
  // The engine may hand the first POST to the hung worker's open poll: that attempt times out (30 s) and counts as failed.
  const record = await deliveryDone(app, run)
  t.match(record, { state: 'delivered', lastResponseStatus: 200, lastError: null })
  t.ok(record.attempts === 1 || record.attempts === 2, `one attempt, or one more that the hung worker held (${record.attempts})`)
  t.equal(hooks.received('/hang').length, 1, 'delivered once')
  t.match(verified(t, secret, hooks.received('/hang')[0]!), { kind: 'result', workflowId: run.workflowId, status: 'completed', output: { item: 'pen', approvedBy: 'ops' } })
})
