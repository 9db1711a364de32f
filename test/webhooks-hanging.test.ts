/**
 * A webhook receiver that hangs holds no step slot, and a delivery slot for 10 s at most (docs/webhooks.md):
 * on a worker of the test's own with 2 activity slots, deliveries to a receiver that trickles its
 * answer and to one whose body never ends leave the steps of other runs free to run; each attempt
 * ends at its deadline or at the body's bound, or at once when the worker stops; the delivery is
 * delivered once the receiver behaves.
 */
import t, { type Test } from 'tap'
import { request } from 'undici'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, eventually, newId } from './helpers/workflows.js'
import { freePort } from './helpers/processes.js'
import { parseMetrics, total } from './helpers/prometheus.js'
import { catalogWorker, closedWithin, deliveryDone, newSecret, receiver, verified } from './helpers/webhooks.js'
import { webhookDeliveryQueue } from '@flowport/core/contract'

const SLOTS = 2

type Hooks = Awaited<ReturnType<typeof receiver>>

/** Starts a `hello` run (a webhook to `url`, if given) and answers its ids. */
async function hello (t: Test, app: App, name: string, url?: string) {
  const secret = newSecret()
  const payload = { workflowName: 'hello', input: { name }, ...(url === undefined ? {} : { webhook: { url, secret } }) }
  const res = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload })
  t.equal(res.status, 200, `${name} started`)
  return { workflowId: res.body.workflowId as string, runId: res.body.runId as string, secret }
}

/** The run's delivery record once an attempt has failed (read from the status endpoint, which the delivery's memo feeds). */
async function firstFailure (t: Test, app: App, run: { workflowId: string, runId: string }) {
  const status = await eventually(
    async () => await call(t, app, { method: 'GET', url: `/workflow/${run.workflowId}/runs/${run.runId}/status`, route: '/workflow/{id}/runs/{rid}/status' }),
    (s) => typeof s.body.webhook?.lastError === 'string', 240)
  return status.body.webhook as { state: string, attempts: number, lastResponseStatus: number | null, lastError: string | null }
}

/** Once the path behaves: the delivery is delivered, by exactly one complete answer, with one webhook-id on every attempt. */
async function deliveredOnce (t: Test, app: App, hooks: Hooks, path: string, run: { workflowId: string, runId: string, secret: string }) {
  hooks.behave(path)
  const record = await deliveryDone(app, run)
  t.equal(record.state, 'delivered', `${path}: delivered once it behaves`)
  const requests = hooks.received(path)
  const answered = requests.filter((r) => r.answer === 200)
  t.equal(answered.length, 1, `${path}: one complete answer`)
  t.match(verified(t, run.secret, answered[0]), { workflowId: run.workflowId, runId: run.runId, status: 'completed' })
  t.equal(new Set(requests.map((r) => r.headers['webhook-id'])).size, 1, `${path}: one webhook-id on every attempt`)
  t.equal(record.attempts, requests.length, `${path}: every attempt is counted`)
}

t.test('a receiver that trickles its answer or sends a body without end holds no slot: other steps run, and it is delivered once it behaves', async (t) => {
  const catalog = newId('webhook-hang')
  const metricsPort = await freePort()
  await catalogWorker(t, catalog, {
    ENGINE_MAX_CONCURRENT_ACTIVITY_TASK_EXECUTIONS: String(SLOTS),
    ENGINE_MAX_CONCURRENT_ACTIVITY_TASK_POLLS: String(SLOTS),
    ENGINE_MAX_CONCURRENT_WEBHOOK_DELIVERIES: String(SLOTS),
    SERVICE_WORKER_METRICS_PORT: String(metricsPort)
  })
  const freeSlots = async (queue: string) => total(parseMetrics(await (await request(`http://127.0.0.1:${metricsPort}/metrics`)).body.text()),
    'temporal_worker_task_slots_available', { worker_type: 'ActivityWorker', task_queue: queue })
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  const hooks = await receiver(t)
  const trickled = await hello(t, app, 'Trickle', hooks.hang('/trickle', 'trickle'))
  const endless = await hello(t, app, 'Endless', hooks.hang('/endless', 'endless'))
  // Both deliveries are in an attempt: one that lasted as long as its receiver kept sending would hold both slots from now on.
  await Promise.all([hooks.until('/trickle', 1), hooks.until('/endless', 1)])
  // They hold the delivery queue's slots, and none of the steps'.
  t.equal(await eventually(async () => await freeSlots(webhookDeliveryQueue(catalog)), (free) => free === 0, 240), 0, 'both delivery slots are taken')
  t.equal(await freeSlots(catalog), SLOTS, 'every step slot is free')

  const other = await hello(t, app, 'Other')
  const closed = await closedWithin(app, other.workflowId, 180_000)
  t.equal(closed, 'COMPLETED', 'another run\'s step ran while both receivers hang')
  // Attempts that held every slot would hold them for as long as the receivers send: nothing below could happen.
  if (closed !== 'COMPLETED') return

  t.match(await firstFailure(t, app, trickled), { state: 'pending', lastError: 'No complete answer from the receiver within 10000 ms' },
    'a trickled answer fails the attempt at its deadline')
  t.match(await firstFailure(t, app, endless), { state: 'pending', lastResponseStatus: 200, lastError: 'The receiver answered 200 with a body longer than 65536 bytes' },
    'a body without end fails the attempt at the bound')

  await deliveredOnce(t, app, hooks, '/trickle', trickled)
  await deliveredOnce(t, app, hooks, '/endless', endless)
  t.equal(await eventually(async () => await freeSlots(webhookDeliveryQueue(catalog)), (free) => free === SLOTS, 240), SLOTS, 'no attempt is left running')
})

t.test('a worker that stops during an attempt to a trickling receiver ends the attempt at once; the next worker delivers', async (t) => {
  const catalog = newId('webhook-hang-stop')
  const first = await catalogWorker(t, catalog, { ENGINE_SHUTDOWN_GRACE_MS: '0' })
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  const hooks = await receiver(t)
  const run = await hello(t, app, 'Stop', hooks.hang('/stop', 'trickle'))
  await hooks.until('/stop', 1)

  t.equal(await first.kill('SIGTERM'), 0, 'the worker exits')
  await catalogWorker(t, catalog)
  t.match(await firstFailure(t, app, run), { state: 'pending', lastError: 'Worker is shutting down and this activity did not complete in time' },
    'the attempt ended by the shutdown, not by its deadline')
  await deliveredOnce(t, app, hooks, '/stop', run)
})
