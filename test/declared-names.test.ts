/**
 * Names on a declared catalog (docs/any-worker.md) whose worker's names are not the API's: a plain
 * Temporal worker (test/fixtures/declared-names/) registers `OrderWorkflow`, which clients call
 * `order`. Every read names the run as clients do: status, the runs list (and its filter), result,
 * schedules. Its handlers' names (`order.approve`, `order state`, `set-discount`) are mapped by the
 * catalog file from the names the API's paths carry.
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { startPlainWorker } from './helpers/plain-worker.js'
import { call, eventually, newId } from './helpers/workflows.js'
import { readCatalogFile } from '../cli/catalog/file.js'
import { publishDeclaredCatalog, removeDeclaredCatalog } from '../cli/catalog/publish.js'
import { activities } from './fixtures/declared-names/activities.js'
import { stepNameOf, stepsOf, type StepHistoryEvent } from '@flowport/core/steps'
import { ProgressRenderer } from '../cli/client/progress.js'

const catalog = `declared-names-${randomUUID()}`
let app: App

const order = {
  name: 'order',
  workflowType: 'OrderWorkflow',
  inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
  signals: [{ name: 'approve', handlerName: 'order.approve', payloadSchema: { type: 'object', properties: { by: { type: 'string' } }, required: ['by'] } }],
  queries: [{ name: 'state', handlerName: 'order state' }],
  updates: [{ name: 'set_discount', handlerName: 'set-discount', payloadSchema: { type: 'integer', minimum: 0 } }]
}

t.before(async () => {
  await startPlainWorker(t, catalog, new URL('./fixtures/declared-names/workflows.ts', import.meta.url), activities)
  app = await build(t)
  const { catalog: declared, hash } = readCatalogFile(JSON.stringify({ catalog, workflows: [order] }), 'catalog.json')
  await publishDeclaredCatalog(app.engine.client, declared, hash)
  t.teardown(async () => { await removeDeclaredCatalog(app.engine.client, catalog) })
})

const get = async (t: Test, url: string, route: string) => await call(t, app, { method: 'GET', url, route })
const post = async (t: Test, url: string, route: string, payload: unknown) => await call(t, app, { method: 'POST', url, route, payload })

/** Starts `order` through the API, once its worker polls. */
async function startOrder (t: Test): Promise<{ workflowId: string, runId: string }> {
  const workflowId = newId('order')
  const res = await eventually(async () => await post(t, '/workflow/start', '/workflow/start', { catalog, workflowName: 'order', input: { amount: 40 }, workflowId }),
    (r) => r.status !== 503)
  t.equal(res.status, 200)
  return res.body as { workflowId: string, runId: string }
}

t.test('status, the runs list and result name a declared run by its name, not its Temporal type', async (t) => {
  const { workflowId, runId } = await startOrder(t)
  const status = await get(t, `/workflow/${workflowId}/status`, '/workflow/{id}/status')
  t.match(status.body, { workflowId, runId, status: 'running', workflowName: 'order', catalog })

  const listed = await eventually(async () => await get(t, `/workflow/runs?catalog=${catalog}&workflowName=order`, '/workflow/runs'),
    (r) => r.body.runs.some((run: { runId: string }) => run.runId === runId))
  t.match(listed.body.runs.find((run: { runId: string }) => run.runId === runId), { workflowName: 'order' }, 'the filter takes the name, the list shows it')
  const byType = await get(t, `/workflow/runs?catalog=${catalog}&workflowName=OrderWorkflow`, '/workflow/runs')
  t.ok(byType.body.runs.some((run: { runId: string }) => run.runId === runId), 'the Temporal type still filters')

  await app.engine.client.workflow.getHandle(workflowId, runId).signal('order.approve', { by: 'Ada' })
  await app.engine.client.workflow.getHandle(workflowId, runId).result()
  const result = await get(t, `/workflow/${workflowId}/result`, '/workflow/{id}/result')
  t.match(result.body, { status: 'completed', workflowName: 'order', output: { charged: 40, approvedBy: 'Ada' } })
  t.equal(result.body.trace, null, 'no trace file is written for a declared run: its trace is built from the history')
  const log = await get(t, `/workflow/${workflowId}/trace-log`, '/workflow/{id}/trace-log')
  t.equal(log.body.source, 'history')
  t.equal(log.body.trace.workflow.name, 'order', 'the trace names the run as clients do')
  t.same(log.body.trace.nodes.filter((n: { kind: string }) => n.kind === 'step').map((n: { name: string }) => n.name), ['charge#card'],
    'another SDK\'s activity type with # is the step\'s name, not Flowport\'s workflow#step')
  const again = await get(t, `/workflow/${workflowId}/result`, '/workflow/{id}/result')
  t.equal(again.body.workflowName, 'order', 'and again, from what the API kept')
  const closed = await get(t, `/workflow/${workflowId}/status`, '/workflow/{id}/status')
  t.match(closed.body, { status: 'completed', workflowName: 'order' })
  const history = await get(t, `/workflow/${workflowId}/history`, '/workflow/{id}/history')
  t.same(stepsOf(history.body.events as StepHistoryEvent[]).map((s) => s.name), ['charge#card'], 'and in the steps the inspector folds from the history')
  const lines: string[] = []
  new ProgressRenderer({ terminal: false, color: false, write: (line) => lines.push(line) }).render({ event: 'history', id: '1', data: history.body.events })
  t.ok(lines.some((line) => line.endsWith('step charge#card completed')), `and in the CLI's live progress: ${lines.join(' | ')}`)
  const reset = await post(t, `/workflow/${workflowId}/reset`, '/workflow/{id}/reset', { from: { step: 'charge#card' } })
  t.equal(reset.status, 200, JSON.stringify(reset.body))
  t.equal(reset.body.resetFrom.step, 'charge#card', 'reset from the step by that name')
  t.match(await app.engine.client.workflow.getHandle(workflowId, reset.body.runId as string).result(), { charged: 40, approvedBy: 'Ada' })
})

t.test('a foreign run whose workflow task keeps failing names its whole activity type in the remedy', async (t) => {
  const workflowId = newId('stuck-order')
  const handle = await app.engine.client.workflow.start('StuckOrderWorkflow', { taskQueue: catalog, workflowId, args: [{ amount: 5 }] })
  t.teardown(async () => { await handle.terminate('done').catch(() => undefined) })
  const status = await eventually(async () => await get(t, `/workflow/${workflowId}/status`, '/workflow/{id}/status'), (r) => r.body.attention !== null, 120)
  t.match(status.body.attention, { kind: 'workflowTaskFailing', message: /a bug after the charge/ })
  t.match(status.body.attention.remedy, 'reset the run from `charge#card`')
})

t.test('a step is named after the # only in a run of the workflow before it, or of Flowport\'s own', async (t) => {
  t.equal(stepNameOf('hello#greet', 'hello'), 'greet')
  t.equal(stepNameOf('hello#judge', '__flowport_eval'), 'judge', 'an eval run calls the evaluators of the workflow it judges')
  t.equal(stepNameOf('charge#card', 'OrderWorkflow'), 'charge#card')
  t.equal(stepNameOf('charge', 'OrderWorkflow'), 'charge')
})

t.test('a schedule of a declared workflow reads back under its name', async (t) => {
  const scheduleId = newId('sched-order')
  const created = await post(t, '/schedules', '/schedules', { scheduleId, catalog, workflowName: 'order', input: { amount: 1 }, spec: { every: [{ interval: '1h' }] } })
  t.equal(created.status, 201)
  t.teardown(async () => { await app.engine.client.schedule.getHandle(scheduleId).delete().catch(() => undefined) })
  const read = await get(t, `/schedules/${scheduleId}`, '/schedules/{scheduleId}')
  t.equal(read.body.workflowName, 'order')
  const listed = await eventually(async () => await get(t, `/schedules?catalog=${catalog}&workflowName=order`, '/schedules'),
    (r) => r.body.schedules.some((s: { scheduleId: string }) => s.scheduleId === scheduleId))
  t.match(listed.body.schedules.find((s: { scheduleId: string }) => s.scheduleId === scheduleId), { workflowName: 'order' })
})

t.test('signal, query and update go to the handler names the catalog file maps', async (t) => {
  const { workflowId, runId } = await startOrder(t)
  const update = await post(t, `/workflow/${workflowId}/update/set_discount`, '/workflow/{id}/update/{name}', { payload: 25 })
  t.equal(update.status, 200)
  t.equal(update.body.result, 25, 'the worker\'s set-discount handler answered')
  const invalid = await post(t, `/workflow/${workflowId}/update/set_discount`, '/workflow/{id}/update/{name}', { payload: -1 })
  t.equal(invalid.status, 400, 'validated against the declared payloadSchema first')
  const query = await post(t, `/workflow/${workflowId}/query/state`, '/workflow/{id}/query/{query}', {})
  t.equal(query.status, 200)
  t.same(query.body.result, { approved: false, discount: 25 }, 'the worker\'s "order state" query answered')
  const signal = await post(t, `/workflow/${workflowId}/signal/approve`, '/workflow/{id}/signal/{name}', { payload: { by: 'Grace' } })
  t.equal(signal.status, 200)
  const output = await app.engine.client.workflow.getHandle(workflowId, runId).result()
  t.same(output, { charged: 30, approvedBy: 'Grace', discount: 25 }, 'the worker\'s order.approve signal handler ran')
  const unknown = await post(t, `/workflow/${workflowId}/query/order_state`, '/workflow/{id}/query/{query}', {})
  t.equal(unknown.status, 404, 'only the declared names are served')
})

t.test('update-with-start sends the mapped update name', async (t) => {
  const workflowId = newId('order-uws')
  const res = await post(t, '/workflow/start', '/workflow/start', { catalog, workflowName: 'order', input: { amount: 10 }, workflowId, update: { name: 'set_discount', payload: 10 } })
  t.equal(res.status, 200)
  t.equal(res.body.result, 10)
  t.same(await app.engine.client.workflow.getHandle(workflowId).query('order state'), { approved: false, discount: 10 }, 'the update reached set-discount')
  await app.engine.client.workflow.getHandle(workflowId).terminate('done')
})

t.test('a batch signal to runs of one declared workflow goes to the handler name the catalog file maps', async (t) => {
  const { workflowId, runId } = await startOrder(t)
  await eventually(async () => await get(t, `/workflow/runs?catalog=${catalog}&workflowName=order&status=running`, '/workflow/runs'),
    (r) => r.body.runs.some((run: { runId: string }) => run.runId === runId))
  // The engine runs one batch per namespace at a time: another test's batch is waited out (429).
  const started = await eventually(async () => await post(t, '/workflow/batch', '/workflow/batch', {
    action: 'signal', filter: { catalog, workflowName: 'order', status: 'running' }, signal: { name: 'approve', payload: { by: 'Batch' } }, reason: 'approve every open order'
  }), (r) => r.status !== 429, 240)
  t.equal(started.status, 202, JSON.stringify(started.body))
  const output = await app.engine.client.workflow.getHandle(workflowId, runId).result()
  t.match(output, { approvedBy: 'Batch' }, 'the worker\'s order.approve handler got the batch\'s signal')
})

t.test('a batch signal whose filter names the declared workflow by its Temporal type is mapped too', async (t) => {
  const { workflowId, runId } = await startOrder(t)
  await eventually(async () => await get(t, `/workflow/runs?catalog=${catalog}&workflowName=OrderWorkflow&status=running`, '/workflow/runs'),
    (r) => r.body.runs.some((run: { runId: string }) => run.runId === runId))
  const started = await eventually(async () => await post(t, '/workflow/batch', '/workflow/batch', {
    action: 'signal', filter: { catalog, workflowName: 'OrderWorkflow', status: 'running' }, signal: { name: 'approve', payload: { by: 'Type' } }, reason: 'approve by type'
  }), (r) => r.status !== 429, 240)
  t.equal(started.status, 202, JSON.stringify(started.body))
  t.match(await app.engine.client.workflow.getHandle(workflowId, runId).result(), { approvedBy: 'Type' }, 'the worker\'s order.approve handler got it')
})
