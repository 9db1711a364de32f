/**
 * Waiting for a watched run's close costs a delivery no worker slot (docs/webhooks.md, "Waiting
 * for the close"): on a worker of the test's own with 10 activity slots, 50 open runs with webhooks
 * leave the steps of other runs free to run, and a delivery waits through the worker's restart.
 */
import t, { type Test } from 'tap'
import { request } from 'undici'
import { WEBHOOK_AWAIT_ACTIVITY, WEBHOOK_DELIVER_ACTIVITY } from '@flowport/core/contract'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, eventually, newId } from './helpers/workflows.js'
import { freePort } from './helpers/processes.js'
import { parseMetrics, total } from './helpers/prometheus.js'
import { catalogWorker, closedWithin, deliveryDone, deliveryIdOf, newSecret, receiver, verified } from './helpers/webhooks.js'

/** Starts `count` approval runs (open until signalled), each with a webhook to `/<prefix>-<i>`. */
async function openRuns (t: Test, app: App, hooks: Awaited<ReturnType<typeof receiver>>, secret: string, prefix: string, count: number) {
  return await Promise.all(Array.from({ length: count }, async (_, i) => {
    const path = `/${prefix}-${i}`
    const payload = { workflowName: 'approval', input: { label: path }, webhook: { url: hooks.url(path), secret } }
    const res = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload })
    t.equal(res.status, 200, `${path} started`)
    return { path, workflowId: res.body.workflowId as string, runId: res.body.runId as string }
  }))
}

/** Resolves once every run's delivery workflow has scheduled its wait for the run's close. */
async function allWaiting (app: App, runs: Array<{ workflowId: string, runId: string }>) {
  const ids = await Promise.all(runs.map(async (run) => await deliveryIdOf(app, run)))
  const waiting = async (id: string) => (await app.engine.client.workflow.getHandle(id).describe()).raw.pendingActivities
    ?.some((a) => a.activityType?.name === WEBHOOK_AWAIT_ACTIVITY) === true
  return await eventually(async () => (await Promise.all(ids.map(waiting))).every(Boolean), (all) => all, 240)
}

/** Approves every run, then checks each delivery: signed, the run's completed result, sent once. */
async function closeAndCheckDeliveries (t: Test, app: App, hooks: Awaited<ReturnType<typeof receiver>>, secret: string, runs: Array<{ path: string, workflowId: string, runId: string }>) {
  await Promise.all(runs.map(async (run) => { await app.engine.client.workflow.getHandle(run.workflowId).signal('approve', { by: 'test' }) }))
  for (const run of runs) {
    const [delivery] = await hooks.until(run.path, 1)
    t.match(verified(t, secret, delivery), { workflowId: run.workflowId, runId: run.runId, status: 'completed', output: { label: run.path, approvedBy: 'test' } }, `${run.path} delivered`)
    t.equal((await deliveryDone(app, run)).state, 'delivered')
    t.equal(hooks.received(run.path).length, 1, `${run.path} delivered once`)
  }
}

t.test('50 open runs with webhooks on a worker with 10 activity slots: a step of another run still runs, and all 50 deliver once closed', async (t) => {
  const catalog = newId('webhook-slots')
  const metricsPort = await freePort()
  const slotted = await catalogWorker(t, catalog, { ENGINE_MAX_CONCURRENT_ACTIVITY_TASK_EXECUTIONS: '10', LOG_LEVEL: 'info', SERVICE_WORKER_METRICS_PORT: String(metricsPort) })
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  const hooks = await receiver(t)
  const secret = newSecret()
  const runs = await openRuns(t, app, hooks, secret, 'open', 50)
  t.ok(await allWaiting(app, runs), 'every delivery waits for its run')
  const metrics = async () => parseMetrics(await (await request(`http://127.0.0.1:${metricsPort}/metrics`)).body.text())
  const freeSlots = async () => total(await metrics(), 'temporal_worker_task_slots_available', { worker_type: 'ActivityWorker', task_queue: catalog })
  // A look holds a slot for milliseconds: the worker is seen with every slot free while all 50 wait.
  t.equal(await eventually(freeSlots, (free) => free === 10, 240), 10, 'all 10 activity slots free while 50 deliveries wait')

  const hello = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'hello', input: { name: 'Slot' } } })
  t.equal(hello.status, 200)
  t.equal(await closedWithin(app, hello.body.workflowId, 180_000), 'COMPLETED', 'hello\'s step ran while 50 runs with webhooks are open')
  const result = await call(t, app, { method: 'GET', url: `/workflow/${hello.body.workflowId as string}/result`, route: '/workflow/{id}/result' })
  t.match(result.body, { status: 'completed', output: { greeting: 'Hello, Slot!' } })

  await closeAndCheckDeliveries(t, app, hooks, secret, runs)

  // The looks at open runs repeat for as long as they are open: no info line, no step metric.
  t.notOk(slotted.output().includes(`Step ${WEBHOOK_AWAIT_ACTIVITY}`), 'the looks log below info level')
  t.ok(slotted.output().includes(`Step ${WEBHOOK_DELIVER_ACTIVITY} completed`), 'the POSTs log at info level')
  const samples = await metrics()
  t.equal(total(samples, 'flowport_step_executions_total', { activity_type: WEBHOOK_AWAIT_ACTIVITY }), 0, 'the looks count as no step')
  t.equal(total(samples, 'flowport_step_executions_total', { activity_type: WEBHOOK_DELIVER_ACTIVITY, outcome: 'completed' }), 50, 'the POSTs do')
})

t.test('a delivery waits through a restart of the worker: killed while its run is open, a new worker delivers once the run closes', async (t) => {
  const catalog = newId('webhook-restart')
  const first = await catalogWorker(t, catalog)
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  const hooks = await receiver(t)
  const secret = newSecret()
  const runs = await openRuns(t, app, hooks, secret, 'restart', 5)
  t.ok(await allWaiting(app, runs), 'every delivery waits for its run')

  await first.kill()
  await catalogWorker(t, catalog)
  await closeAndCheckDeliveries(t, app, hooks, secret, runs)
})
