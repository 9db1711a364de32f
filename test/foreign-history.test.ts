/**
 * Runs of workflows not written with Flowport's SDK (a plain Temporal worker on its own task queue,
 * no catalog: test/fixtures/foreign/) read through the API by workflow id: status, result with
 * `errorDetails` in the activity's own error type, history, the trace built from history alone
 * (`source: "history"`: steps named by activity type, attempts as the history records them, a
 * local activity's output from its marker), and a reset from a step named by activity type. Last,
 * with the task queue declared in a catalog file (docs/any-worker.md): run through the API, traced
 * the same way.
 */
import t, { type Test } from 'tap'
import type { Trace, TraceNode } from '@flowport/core/trace'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { startPlainWorker } from './helpers/plain-worker.js'
import { call, newId } from './helpers/workflows.js'
import { launchChromium } from './helpers/browser.js'
import { flowport } from './helpers/flowport-cli.js'
import { readCatalogFile } from '../cli/catalog/file.js'
import { publishDeclaredCatalog, removeDeclaredCatalog } from '../cli/catalog/publish.js'
import * as activities from './fixtures/foreign/activities.js'

interface TraceLog { source: string, location: string | null, partial: boolean, trace: Trace }

const taskQueue = `foreign-${process.pid}`
let app: App

t.before(async () => {
  await startPlainWorker(t, taskQueue, new URL('./fixtures/foreign/workflows.ts', import.meta.url), activities)
  app = await build(t)
})

/** Starts a run through the engine client directly (as another language's client would) and waits for it to close. */
async function runToClose (workflowType: string, input: unknown): Promise<string> {
  const workflowId = newId(workflowType)
  const handle = await app.engine.client.workflow.start(workflowType, { taskQueue, workflowId, args: [input] })
  await handle.result().catch(() => undefined)
  return workflowId
}

const get = async (t: Test, workflowId: string, what: 'status' | 'result' | 'history' | 'trace-log') =>
  await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/${what}`, route: `/workflow/{id}/${what}` })

const node = (trace: Trace, name: string): TraceNode => {
  const found = trace.nodes.find((n) => n.name === name)
  if (found === undefined) throw new Error(`no node ${name} in ${trace.nodes.map((n) => n.name).join(', ')}`)
  return found
}

t.test('a completed run: status, result, history and a trace built from its history', async (t) => {
  const workflowId = await runToClose('placeOrder', { item: 'lamp', failUntil: 3 })

  const status = await get(t, workflowId, 'status')
  t.equal(status.status, 200)
  t.match(status.body, { status: 'completed', workflowName: 'placeOrder', catalog: taskQueue })

  const result = await get(t, workflowId, 'result')
  t.equal(result.status, 200)
  t.same(result.body.output, { price: 400, charged: 400, shipment: 'shipped lamp' })
  t.equal(result.body.trace, null, 'no trace file names a run no Flowport worker traces')

  const history = await get(t, workflowId, 'history')
  t.equal(history.status, 200)
  const scheduled = (history.body.events as Array<{ activityTaskScheduledEventAttributes?: { activityType: { name: string } } }>)
    .flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType.name ?? [])
  t.same(scheduled, ['chargeCard', 'shipOrder'], 'the history names the activities by their own type')

  const res = await get(t, workflowId, 'trace-log')
  t.equal(res.status, 200)
  const log = res.body as TraceLog
  t.equal(log.source, 'history', 'marked as built from the history alone')
  t.equal(log.location, null)
  t.equal(log.partial, false)
  const { trace } = log
  t.match(trace.workflow, { name: 'placeOrder', catalog: taskQueue, status: 'completed', input: { item: 'lamp', failUntil: 3 } })
  t.same(trace.nodes.map((n) => [n.kind, n.name, n.type, n.status]), [
    ['step', 'priceOf', 'priceOf', 'completed'],
    ['step', 'chargeCard', 'chargeCard', 'completed'],
    ['step', 'shipOrder', 'shipOrder', 'completed']
  ], 'every activity is a step named by its activity type, the local one from its marker')

  const local = node(trace, 'priceOf')
  t.equal(local.output, 400, 'the local activity\'s output is its bare result')
  t.equal(local.input, null, 'its marker records no input')
  t.ok(local.endTime, 'it ended when its marker was recorded')

  const charge = node(trace, 'chargeCard')
  t.same(charge.input, { item: 'lamp', price: 400, failUntil: 3 })
  t.same(charge.output, { charged: 400 })
  t.same(charge.attempts.map((a) => [a.attempt, a.status]), [[1, 'unknown'], [2, 'unknown'], [3, 'completed']],
    'attempts as the history records them: the last one, and the number of those before')
  t.match(charge.attempts[1]!.error, { name: 'CardNetworkBusy', message: 'card network busy (attempt 2)', retryable: true },
    'the attempt before the last carries the engine\'s last failure')
  t.ok(charge.startTime !== null && charge.endTime !== null && charge.scheduledTime !== null, 'timed from its events')

  const again = await get(t, workflowId, 'trace-log')
  t.same(again.body, log, 'a closed run\'s trace reads the same again')

  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const printed = await flowport(['trace', workflowId], { env: { FLOWPORT_URL: base } })
  t.equal(printed.code, 0)
  t.equal((JSON.parse(printed.stdout) as TraceLog).source, 'history', 'flowport trace prints it')
  t.match(printed.stderr, /built from the run's history/, 'and says so on stderr')

  // The inspector says where the timeline comes from (needs Debian's chromium at /usr/bin/chromium).
  const tab = await (await launchChromium(t)).newPage()
  await tab.goto(`${base}/ui/#/run/${encodeURIComponent(workflowId)}`)
  const label = tab.locator('[data-trace-source="history"]')
  await label.waitFor({ timeout: 60_000 })
  t.match(await label.textContent(), /Built from the run's history/, 'the timeline is labelled as built from history')
  t.equal(await tab.locator('.timeline [data-node="chargeCard"]').count(), 1, 'with the activity as a step')
})

t.test('a failed run: errorDetails in the activity\'s own error type and retryable flag', async (t) => {
  const workflowId = await runToClose('refuseOrder', { item: 'vase' })
  const result = await get(t, workflowId, 'result')
  t.equal(result.status, 200)
  t.equal(result.body.status, 'failed')
  t.match(result.body.errorDetails, { name: 'PaymentDeclined', message: 'card declined for vase', retryable: false, activityId: 'declineCard' })
  t.match(result.body.errorDetails.cause, { name: 'ActivityFailure', activityId: 'declineCard', cause: { name: 'PaymentDeclined', retryable: false } })

  const log = (await get(t, workflowId, 'trace-log')).body as TraceLog
  t.equal(log.source, 'history')
  t.match(log.trace.workflow, { status: 'failed', error: { name: 'PaymentDeclined', retryable: false } })
  t.match(node(log.trace, 'declineCard'), { status: 'failed', error: { name: 'PaymentDeclined', message: 'card declined for vase' } })
})

t.test('an application error without a type (Python\'s ApplicationError(msg), Go\'s errors.New) reads as Error in the result and the trace alike', async (t) => {
  const workflowId = await runToClose('loseOrder', { item: 'clock' })
  const result = await get(t, workflowId, 'result')
  t.match(result.body.errorDetails, { name: 'Error', message: 'parcel with clock lost', retryable: false, activityId: 'loseParcel' })
  const log = (await get(t, workflowId, 'trace-log')).body as TraceLog
  t.match(node(log.trace, 'loseParcel').error, { name: 'Error', message: 'parcel with clock lost', retryable: false })
  t.match(log.trace.workflow.error, { name: 'Error', message: 'parcel with clock lost' })
})

t.test('reset from a step named by its activity type', async (t) => {
  const workflowId = await runToClose('placeOrder', { item: 'desk', failUntil: 1 })
  const res = await call(t, app, {
    method: 'POST', url: `/workflow/${workflowId}/reset`, route: '/workflow/{id}/reset', payload: { from: { step: 'shipOrder' }, reason: 'ship again' }
  })
  t.equal(res.status, 200)
  t.equal(res.body.resetFrom.step, 'shipOrder')
  await app.engine.client.workflow.getHandle(workflowId, res.body.runId as string).result()
  const log = (await get(t, workflowId, 'trace-log')).body as TraceLog
  t.equal(log.trace.workflow.runId, res.body.runId, 'the new run')
  t.equal(log.trace.workflow.resetFrom?.runId, res.body.resetFrom.runId)
  t.equal(log.trace.workflow.status, 'completed')
})

t.test('declared in a catalog file, run through the API: the trace is still built from the history', async (t) => {
  const file = JSON.stringify({ catalog: taskQueue, workflows: [{ name: 'placeOrder', activities: ['priceOf', 'chargeCard', 'shipOrder'] }] })
  const { catalog, hash } = readCatalogFile(file, 'catalog.json')
  await publishDeclaredCatalog(app.engine.client, catalog, hash)
  t.teardown(async () => { await removeDeclaredCatalog(app.engine.client, taskQueue) })
  const res = await call(t, app, {
    method: 'POST', url: '/workflow/run', route: '/workflow/run', payload: { catalog: taskQueue, workflowName: 'placeOrder', input: { item: 'rug', failUntil: 2 } }
  })
  t.equal(res.status, 200)
  t.same(res.body.output, { price: 300, charged: 300, shipment: 'shipped rug' })
  t.equal(res.body.trace, null, 'nor one of a declared catalog\'s run')
  const log = (await get(t, res.body.workflowId as string, 'trace-log')).body as TraceLog
  t.equal(log.source, 'history', 'a declared catalog has no trace writer')
  t.same(node(log.trace, 'chargeCard').attempts.map((a) => a.status), ['unknown', 'completed'])
})
