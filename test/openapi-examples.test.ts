/**
 * Swagger "Try it out" works unedited: the request examples of the committed OpenAPI document (the
 * bodies, the path's `id` and the header examples, which Swagger UI fills in too) are sent as they
 * are to a running app. On an engine and
 * worker of the test's own: the batch example acts on every running `approval` run, which on the
 * shared engine would reach other tests' runs.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import type { Test } from 'tap'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { ownEngine } from './helpers/own-engine.js'
import { until } from './helpers/processes.js'
import { call, eventually, firstTaskCompleted } from './helpers/workflows.js'

const doc = JSON.parse(readFileSync(new URL('../openapi/openapi.json', import.meta.url), 'utf8'))

/** The first example of the request body schema of an operation. */
function bodyExample (path: string, method: string): unknown {
  const ref = String(doc.paths[path][method].requestBody.content['application/json'].schema.$ref)
  return doc.components.schemas[ref.split('/').pop() as string].examples[0]
}

const pathExample = (path: string, method: string, name: string): string =>
  doc.paths[path][method].parameters.find((p: { in: string, name: string }) => p.in === 'path' && p.name === name).example

/** The header examples of an operation: Swagger UI fills them into "Try it out" as well. */
const headerExamples = (path: string, method: string): Record<string, string> => Object.fromEntries(
  (doc.paths[path][method].parameters ?? []).filter((p: { in: string }) => p.in === 'header').map((p: { name: string, example: string }) => [p.name, p.example]))

const send = async (t: Test, app: App, path: string, method: 'post', url = path) =>
  await call(t, app, { method: 'POST', url, route: path, payload: bodyExample(path, method), headers: headerExamples(path, method) })

t.test('the examples of POST /workflow/start, /workflow/{id}/reset, /schedules and /workflow/batch work unedited', async (t) => {
  const engine = await ownEngine(t)
  const app = await build(t, { TEMPORAL_ADDRESS: engine.address, SERVICE_CATALOG_ID: engine.catalog })
  t.ok(await until(async () => (await app.inject({ method: 'GET', url: '/ready' })).statusCode === 200), 'ready once the worker published its catalog')

  // The run the reset example's path names (`expense-42`, a waiting `approval`) comes from the start example.
  t.same(Object.keys(headerExamples('/workflow/start', 'post')).sort(), ['idempotency-key', 'prefer'], 'the start example sends its headers')
  t.same(headerExamples('/workflow/{id}/reset', 'post'), { 'if-match': '*' }, 'and the reset example its If-Match')
  // `Prefer: wait=10` waits for a run that waits for its approval: 202 after 10 s.
  const started = await send(t, app, '/workflow/start', 'post')
  t.equal(started.status, 202, 'the start example')
  const id = pathExample('/workflow/{id}/reset', 'post', 'id')
  t.equal(started.body.workflowId, id, 'it starts the run the reset example names')
  // `start` is the run's first workflow task: wait until the worker completed it.
  t.ok(await firstTaskCompleted(app, id), 'the run completed its first workflow task')

  const reset = await send(t, app, '/workflow/{id}/reset', 'post', `/workflow/${id}/reset`)
  t.equal(reset.status, 200, 'the reset example')
  t.match(reset.body, { workflowId: id, resetFrom: { runId: started.body.runId } })

  const schedule = await send(t, app, '/schedules', 'post')
  t.equal(schedule.status, 201, 'the schedule example')
  const deleted = await call(t, app, { method: 'DELETE', url: `/schedules/${String(schedule.body.scheduleId)}`, route: '/schedules/{scheduleId}' })
  t.equal(deleted.status, 204, 'and the schedule is deleted again')

  const batch = await send(t, app, '/workflow/batch', 'post')
  t.equal(batch.status, 202, 'the batch example')
  const done = await eventually(async () => (await call(t, app, { method: 'GET', url: `/workflow/batch/${String(batch.body.batchId)}`, route: '/workflow/batch/{batchId}' })).body,
    (b) => b.state !== 'running', 240)
  t.match(done, { action: 'terminate', state: 'completed' })
})
