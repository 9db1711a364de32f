/**
 * A real Python worker (examples/python-worker: Temporal's Python SDK, nothing of Flowport's) behind
 * the API through its catalog file (issue 52): run, start with Idempotency-Key and Prefer: wait,
 * status, result, input, signal, query, update (the worker's validator rejecting → 422), stop,
 * terminate, history and SSE resumed with Last-Event-ID, the runs list, the typed per-catalog OpenAPI
 * document and a TypeScript client generated from it; what needs Flowport's worker (large inputs by
 * reference, evals) is refused with the reason. Each response is checked against openapi.json.
 */
import t from 'tap'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import openapiTS, { astToString } from 'openapi-typescript'
import type { OpenAPI3 } from 'openapi-typescript'
import { build } from './helpers/app.js'
import { call, eventually, newId, waitClosed } from './helpers/workflows.js'
import { eventIds, hasDone, openSse } from './helpers/history.js'
import { startPythonWorker } from './helpers/python-worker.js'
import { compileTypeScript } from './helpers/compile-typescript.js'
import type { App } from '../app.js'
import type { Test } from 'tap'

const catalog = `python-${randomUUID()}`

const post = (t: Test, app: App, url: string, route: string, payload: unknown, headers?: Record<string, string>) =>
  call(t, app, { method: 'POST', url, route, payload, headers })
const get = (t: Test, app: App, url: string, route: string) => call(t, app, { method: 'GET', url, route })
const startRun = async (t: Test, app: App, workflowName: string, input: unknown, workflowId = newId(workflowName)) => {
  const res = await post(t, app, '/workflow/start', '/workflow/start', { catalog, workflowName, input, workflowId })
  t.equal(res.status, 200, `started ${workflowName}`)
  return res.body as { workflowId: string, runId: string }
}

t.before(async () => {
  await startPythonWorker(t, catalog)
})

t.test('the declared catalog is served, with its Python worker polling', async (t) => {
  const app = await build(t)
  const res = await eventually(() => get(t, app, `/workflow/catalog/${catalog}`, '/workflow/catalog/{catalogId}'), (r) => r.body?.workers?.polling === true)
  t.equal(res.status, 200)
  t.equal(res.body.declared, true)
  t.equal(res.body.workers.polling, true, 'workersPolling comes from the task queue, whatever the worker\'s language')
  t.same(res.body.workflows.map((w: { name: string }) => w.name), ['greet', 'order', 'flaky', 'ticker'])
})

t.test('run, start with Idempotency-Key and Prefer: wait, status, result and input', async (t) => {
  const app = await build(t)
  const ran = await post(t, app, '/workflow/run', '/workflow/run', { catalog, workflowName: 'greet', input: { name: 'Ada' } })
  t.equal(ran.status, 200)
  t.match(ran.body, { status: 'completed', output: { greeting: 'Hello, Ada!' } })

  const key = randomUUID()
  const body = { catalog, workflowName: 'greet', input: { name: 'Grace' } }
  const first = await post(t, app, '/workflow/start', '/workflow/start', body, { 'idempotency-key': key, prefer: 'wait=30' })
  t.equal(first.status, 200)
  t.equal(first.headers['preference-applied'], 'wait=30')
  t.match(first.body, { kind: 'result', status: 'completed', output: { greeting: 'Hello, Grace!' } })
  const retried = await post(t, app, '/workflow/start', '/workflow/start', body, { 'idempotency-key': key })
  t.equal(retried.body.runId, first.body.runId, 'a retry with the key answers the same run')
  const other = await post(t, app, '/workflow/start', '/workflow/start', { ...body, input: { name: 'Other' } }, { 'idempotency-key': key })
  t.equal(other.status, 422, 'the key with another body is refused')

  const { workflowId } = first.body
  const status = await get(t, app, `/workflow/${workflowId}/status`, '/workflow/{id}/status')
  t.match(status.body, { workflowId, status: 'completed' })
  const result = await get(t, app, `/workflow/${workflowId}/result`, '/workflow/{id}/result')
  t.match(result.body, { status: 'completed', output: { greeting: 'Hello, Grace!' } })
  const input = await get(t, app, `/workflow/${workflowId}/input`, '/workflow/{id}/input')
  t.same(input.body.input, { name: 'Grace' })

  const invalid = await post(t, app, '/workflow/start', '/workflow/start', { catalog, workflowName: 'greet', input: { name: '' } })
  t.equal(invalid.status, 400, 'the declared inputSchema is enforced')
  t.match(invalid.body.issues, [{ path: '/name', in: 'input' }])
})

t.test('signal, query and update are validated against the declared schemas; the worker\'s validator answers 422', async (t) => {
  const app = await build(t)
  const { workflowId } = await startRun(t, app, 'order', { item: 'book', quantity: 2 })
  const query = async () => await post(t, app, `/workflow/${workflowId}/query/state`, '/workflow/{id}/query/{query}', {})
  const queried = await eventually(query, (r) => r.status === 200)
  t.same(queried.body.result, { approved: false, discount: 0 })

  const updated = await post(t, app, `/workflow/${workflowId}/update/set_discount`, '/workflow/{id}/update/{name}', { payload: 10 })
  t.equal(updated.status, 200)
  t.equal(updated.body.result, 10)
  const rejected = await post(t, app, `/workflow/${workflowId}/update/set_discount`, '/workflow/{id}/update/{name}', { payload: 80 })
  t.equal(rejected.status, 422, 'the Python validator rejects it')
  t.equal(rejected.body.error, 'UpdateRejectedError')
  t.match(rejected.body.message, 'a discount over 50% needs a manager')
  const badPayload = await post(t, app, `/workflow/${workflowId}/update/set_discount`, '/workflow/{id}/update/{name}', { payload: -1 })
  t.equal(badPayload.status, 400, 'the declared payloadSchema is checked before the engine')
  const unknown = await post(t, app, `/workflow/${workflowId}/signal/cancel_order`, '/workflow/{id}/signal/{name}', {})
  t.equal(unknown.status, 404, 'a signal the catalog does not declare')
  const badSignal = await post(t, app, `/workflow/${workflowId}/signal/approve`, '/workflow/{id}/signal/{name}', { payload: { by: 7 } })
  t.equal(badSignal.status, 400)

  const signalled = await post(t, app, `/workflow/${workflowId}/signal/approve`, '/workflow/{id}/signal/{name}', { payload: { by: 'ann' } })
  t.equal(signalled.status, 200)
  t.equal(await waitClosed(app, workflowId), 'COMPLETED')
  const result = await get(t, app, `/workflow/${workflowId}/result`, '/workflow/{id}/result')
  t.same(result.body.output, { item: 'book', quantity: 2, discount: 10, approvedBy: 'ann' })
})

t.test('an activity failing with ApplicationError is retried by the worker; one that never succeeds fails the run', async (t) => {
  const app = await build(t)
  const ran = await post(t, app, '/workflow/run', '/workflow/run', { catalog, workflowName: 'flaky', input: {} })
  t.match(ran.body, { status: 'completed', output: { attempts: 3 } })
  const failed = await post(t, app, '/workflow/run', '/workflow/run', { catalog, workflowName: 'flaky', input: { failAlways: true } })
  t.equal(failed.body.status, 'failed')
  t.match(failed.body.error, 'card declined for good')
})

t.test('a long-running run: history, SSE resumed with Last-Event-ID, the runs list, stop and terminate', async (t) => {
  const app = await build(t)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const { workflowId, runId } = await startRun(t, app, 'ticker', { ticks: 1000, intervalMs: 100 })

  const url = `${base}/workflow/${workflowId}/history/stream`
  const first = await openSse(url)
  t.equal(first.statusCode, 200)
  const frames = await first.until((f) => eventIds(f).length >= 8)
  first.close()
  const last = frames.filter((f) => f.event === 'history').at(-1)
  t.ok(last?.id, 'history frames carry an id')
  const seen = eventIds(frames)
  const resumed = await openSse(url, { 'last-event-id': last?.id as string })
  const later = await resumed.until((f) => eventIds(f).length >= 2)
  t.ok(Math.min(...eventIds(later)) > Math.max(...seen), 'resumed after the last event seen')

  const page = await get(t, app, `/workflow/${workflowId}/history`, '/workflow/{id}/history')
  t.equal(page.status, 200)
  t.ok(page.body.events.some((e: { eventType: string }) => /ACTIVITY_TASK_COMPLETED/i.test(e.eventType)), 'the history shows the Python activities')

  const listed = await eventually(() => get(t, app, `/workflow/runs?catalog=${catalog}&status=running`, '/workflow/runs'),
    (r) => r.body.runs.some((run: { workflowId: string }) => run.workflowId === workflowId))
  t.match(listed.body.runs.find((run: { workflowId: string }) => run.workflowId === workflowId), { runId, catalog, workflowName: 'ticker' },
    'listed on its catalog, under the name clients use')

  const stopped = await call(t, app, { method: 'PATCH', url: `/workflow/${workflowId}/stop`, route: '/workflow/{id}/stop', payload: {} })
  t.equal(stopped.status, 200)
  t.equal(stopped.body.outcome, 'cancel_requested')
  t.equal(await waitClosed(app, workflowId), 'CANCELLED', 'the Python workflow is cancelled')
  await resumed.until(hasDone)
  resumed.close()

  const other = await startRun(t, app, 'ticker', { ticks: 1000, intervalMs: 100 })
  const terminated = await post(t, app, `/workflow/${other.workflowId}/terminate`, '/workflow/{id}/terminate', { reason: 'enough' })
  t.match(terminated.body, { status: 'terminated', reason: 'enough' })
})

t.test('what needs Flowport\'s worker is refused with the reason: a large input, evals', async (t) => {
  const app = await build(t)
  const large = await post(t, app, '/workflow/start', '/workflow/start', { catalog, workflowName: 'greet', input: { name: 'x'.repeat(300 * 1024) } })
  t.equal(large.status, 413)
  t.equal(large.body.error, 'PayloadTooLargeError')
  t.match(large.body.message, /SERVICE_PAYLOAD_REF_THRESHOLD_BYTES.*without Flowport's payload codec/)
  const order = await startRun(t, app, 'order', { item: 'book', quantity: 1 })
  t.teardown(async () => { await app.inject({ method: 'POST', url: `/workflow/${order.workflowId}/terminate`, payload: {} }) })
  const largeSignal = await post(t, app, `/workflow/${order.workflowId}/signal/approve`, '/workflow/{id}/signal/{name}', { payload: { by: 'x'.repeat(300 * 1024) } })
  t.equal(largeSignal.status, 413, 'a handler payload too')
  t.match(largeSignal.body.message, /The payload has \d+ bytes/)
  const evals = await post(t, app, '/evals', '/evals', { catalog, workflowName: 'greet' })
  t.equal(evals.status, 404)
  t.match(evals.body.message, 'Evals need Flowport\'s worker SDK')
})

t.test('the typed OpenAPI document carries the declared schemas, and a generated client compiles a typed call', async (t) => {
  const app = await build(t)
  const res = await get(t, app, `/workflow/catalog/${catalog}/openapi.json`, '/workflow/catalog/{catalogId}/openapi.json')
  t.equal(res.status, 200)
  const doc = res.body
  t.same(doc.components.schemas['order.Input'].properties.quantity, { type: 'integer', minimum: 1 }, 'the declared input schema')
  t.same(doc.components.schemas['greet.Output'].properties.greeting, { type: 'string' }, 'the declared output schema')

  const dir = mkdtempSync(join(tmpdir(), 'flowport-python-client-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'catalog-api.ts'), astToString(await openapiTS(doc as OpenAPI3)))
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}')
  writeFileSync(join(dir, 'good.ts'), `import type { paths } from './catalog-api.js'
type RunBody = paths['/workflow/run']['post']['requestBody']['content']['application/json']
type Ran = paths['/workflow/run']['post']['responses'][200]['content']['application/json']
export const body: RunBody = { catalog: '${catalog}', workflowName: 'order', input: { item: 'book', quantity: 2 } }
export function approvedBy (result: Ran): string | null {
  if (result.workflowName !== 'order' || result.output === null) return null
  const by: string = result.output.approvedBy
  return by
}
type Discount = paths['/workflow/{id}/update/set_discount']['post']
export const discount: NonNullable<Discount['requestBody']>['content']['application/json'] = { payload: 10 }
`)
  writeFileSync(join(dir, 'bad.ts'), `import type { paths } from './catalog-api.js'
type RunBody = paths['/workflow/run']['post']['requestBody']['content']['application/json']
export const body: RunBody = { catalog: '${catalog}', workflowName: 'order', input: { item: 'book', quantity: 'two' } }
`)
  const good = await compileTypeScript(dir, 'good.ts')
  t.equal(good.code, 0, `a typed call of the Python workflow compiles: ${good.output}`)
  const bad = await compileTypeScript(dir, 'bad.ts')
  t.not(bad.code, 0, 'a wrong input type does not')
  t.match(bad.output, /bad\.ts\(3,\d+\): error TS2322/)
})

t.test('a schedule starts the declared workflow under its Temporal type, and reads back without warnings', async (t) => {
  const app = await build(t)
  const scheduleId = newId('sched-python')
  const created = await post(t, app, '/schedules', '/schedules', { scheduleId, catalog, workflowName: 'greet', input: { name: 'Lin' }, spec: { every: [{ interval: '1h' }] } })
  t.equal(created.status, 201)
  t.teardown(async () => { await app.engine.client.schedule.getHandle(scheduleId).delete().catch(() => undefined) })
  t.equal((await post(t, app, `/schedules/${scheduleId}/trigger`, '/schedules/{scheduleId}/trigger', undefined)).status, 204)
  const read = async () => await get(t, app, `/schedules/${scheduleId}`, '/schedules/{scheduleId}')
  const triggered = await eventually(read, (r) => r.body.recentActions?.length >= 1, 120)
  t.same(triggered.body.warnings, [], 'the stored action still matches the declared workflow')
  const [action] = triggered.body.recentActions
  t.equal(await waitClosed(app, action.workflowId, action.runId), 'COMPLETED', 'the Python worker ran it: the action names its type')
  const result = await get(t, app, `/workflow/${encodeURIComponent(action.workflowId)}/result`, '/workflow/{id}/result')
  t.same(result.body.output, { greeting: 'Hello, Lin!' })
})
