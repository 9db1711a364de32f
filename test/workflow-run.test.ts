import t from 'tap'
import { build } from './helpers/app.js'
import { call, newId, waitClosed } from './helpers/workflows.js'

const run = (payload: unknown) => ({ method: 'POST' as const, url: '/workflow/run', route: '/workflow/run', payload })

t.test('run waits and answers the WorkflowResult of a completed run', async (t) => {
  const app = await build(t)
  const workflowId = newId('hello')
  const res = await call(t, app, run({ workflowName: 'hello', input: { name: 'Ada' }, workflowId }))
  t.equal(res.status, 200)
  t.same(res.body, {
    kind: 'result',
    workflowId,
    runId: res.body.runId,
    workflowName: 'hello',
    input: { name: 'Ada' },
    output: { greeting: 'Hello, Ada!' },
    // The bucket is named once the worker has written the trace there, which may be after this answer.
    trace: { destinations: { ...app.traces!.destinations(workflowId, res.body.runId), remote: res.body.trace.destinations.remote } },
    status: 'completed',
    error: null,
    errorDetails: null
  })
  t.ok([null, app.traces!.destinations(workflowId, res.body.runId).remote].includes(res.body.trace.destinations.remote), 'the bucket, or not yet')
  t.match(res.body.runId, /^[0-9a-f-]{36}$/)
})

t.test('an alias runs the canonical workflow', async (t) => {
  const app = await build(t)
  const res = await call(t, app, run({ workflowName: 'hi', input: { name: 'Bo' } }))
  t.equal(res.status, 200)
  t.same(res.body.output, { greeting: 'Hello, Bo!' })
  t.equal(res.body.workflowName, 'hello', 'the result names the canonical workflow')
  const status = await call(t, app, { method: 'GET', url: `/workflow/${res.body.workflowId}/status`, route: '/workflow/{id}/status' })
  t.equal(status.body.workflowName, 'hello', 'the run is of the canonical type')
})

t.test('a failed run is a 200 with status failed and sanitized error details', async (t) => {
  const app = await build(t)
  const res = await call(t, app, run({ workflowName: 'explode', input: { message: 'boom at dawn' } }))
  t.equal(res.status, 200)
  t.equal(res.body.status, 'failed')
  t.equal(res.body.output, null)
  t.equal(res.body.error, 'boom at dawn')
  t.same(res.body.input, { message: 'boom at dawn' })
  const details = res.body.errorDetails
  t.equal(details.name, 'ExplosionError')
  t.equal(details.message, 'boom at dawn')
  t.equal(details.retryable, false)
  t.equal(details.activityId, 'explode#detonate')
  t.match(details.cause, { name: 'ActivityFailure', activityId: 'explode#detonate', cause: { name: 'ExplosionError', message: 'boom at dawn', cause: null } })
  t.notMatch(JSON.stringify(res.body), /stack|\bat .*\(.*:\d+:\d+\)/, 'no stack anywhere')
})

t.test('a flaky step is retried until it succeeds', async (t) => {
  const app = await build(t)
  const res = await call(t, app, run({ workflowName: 'flaky', input: { failures: 2 } }))
  t.equal(res.status, 200)
  t.equal(res.body.status, 'completed')
  t.same(res.body.output, { attempts: 3 })
})

t.test('run follows continue-as-new and answers the last run of the chain', async (t) => {
  const app = await build(t)
  const workflowId = newId('relay')
  const res = await call(t, app, run({ workflowName: 'relay', input: { hops: 2 }, workflowId }))
  t.equal(res.status, 200)
  t.equal(res.body.status, 'completed')
  t.same(res.body.output, { hops: 0 })
  t.same(res.body.input, { hops: 0 }, 'the input of the last run')
  const latest = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/result`, route: '/workflow/{id}/result' })
  // But for the trace's bucket, named once the worker has written it there (maybe in between).
  t.same({ ...latest.body, trace: null }, { ...res.body, trace: null }, 'the same as GET /result afterwards')
  t.equal(latest.body.trace.destinations.local, res.body.trace.destinations.local)
})

t.test('a run that outlasts its timeout answers 408 and keeps running; its result is readable later', async (t) => {
  const app = await build(t)
  const workflowId = newId('approval')
  const res = await call(t, app, run({ workflowName: 'approval', input: { label: 'slow' }, workflowId, timeout: 300 }))
  t.equal(res.status, 408)
  t.equal(res.body.error, 'WorkflowExecutionTimedOutError')
  t.equal(res.body.workflowId, workflowId)
  t.match(res.body.runId, /^[0-9a-f-]{36}$/)

  const status = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/status`, route: '/workflow/{id}/status' })
  t.equal(status.body.status, 'running', 'the workflow was not touched')
  t.equal(status.body.runId, res.body.runId)

  const signal = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/signal/approve`, route: '/workflow/{id}/signal/{name}', payload: { payload: { by: 'lead' } } })
  t.equal(signal.status, 200)
  await waitClosed(app, workflowId)
  const result = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/result`, route: '/workflow/{id}/result' })
  t.equal(result.status, 200)
  t.same(result.body.output, { label: 'slow', approvedBy: 'lead' })
})

t.test('repeated 408s leave no abort listener behind (no MaxListenersExceededWarning)', async (t) => {
  const app = await build(t)
  const warnings: Error[] = []
  const onWarning = (warning: Error) => { if (warning.name === 'MaxListenersExceededWarning') warnings.push(warning) }
  process.on('warning', onWarning)
  t.teardown(() => { process.off('warning', onWarning) })
  const ids: string[] = []
  for (let i = 0; i < 4; i++) {
    const workflowId = newId('approval')
    ids.push(workflowId)
    // Long enough for the close-event wait to make many engine calls on the request's one signal.
    const res = await call(t, app, run({ workflowName: 'approval', input: { label: `timeout ${i}` }, workflowId, timeout: 600 }))
    t.equal(res.status, 408)
  }
  // Warnings are emitted on the next tick.
  await new Promise((resolve) => setImmediate(resolve))
  t.same(warnings.map((w) => w.message), [], 'no listener piled up on a request\'s signal')
  await Promise.all(ids.map(async (id) => { await app.engine.client.workflow.getHandle(id).terminate('test cleanup') }))
})

t.test('a timeout above SERVICE_RUN_MAX_TIMEOUT_MS is lowered to it', async (t) => {
  const app = await build(t, { SERVICE_RUN_TIMEOUT_MS: '200', SERVICE_RUN_MAX_TIMEOUT_MS: '400' })
  const workflowId = newId('approval')
  const res = await call(t, app, run({ workflowName: 'approval', input: { label: 'capped' }, workflowId, timeout: 3_600_000 }))
  t.equal(res.status, 408)
  t.match(res.body.message, /within 400 ms/)
  await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup')
})

t.test('body validation: schema, unknown fields, timeout bounds, reserved ids', async (t) => {
  const app = await build(t)
  const cases: Array<[string, unknown, string]> = [
    ['missing workflowName', { input: {} }, '/workflowName'],
    ['missing input', { workflowName: 'hello' }, '/input'],
    ['unknown field', { workflowName: 'hello', input: { name: 'x' }, colour: 'red' }, '/colour'],
    ['timeout 0', { workflowName: 'hello', input: { name: 'x' }, timeout: 0 }, '/timeout'],
    ['empty workflowId', { workflowName: 'hello', input: { name: 'x' }, workflowId: '' }, '/workflowId'],
    ['too long workflowId', { workflowName: 'hello', input: { name: 'x' }, workflowId: 'x'.repeat(1001) }, '/workflowId'],
    ['reserved workflowId', { workflowName: 'hello', input: { name: 'x' }, workflowId: '__flowport_catalog:x' }, '/workflowId'],
    ['shadowed workflowId', { workflowName: 'hello', input: { name: 'x' }, workflowId: 'catalog' }, '/workflowId']
  ]
  for (const [name, payload, path] of cases) {
    const res = await call(t, app, run(payload))
    t.equal(res.status, 400, name)
    t.equal(res.body.error, 'ValidationError', name)
    t.ok(res.body.issues.some((i: { path: string, in: string }) => i.path === path && i.in === 'body'), `${name}: issue at ${path}`)
  }
})

t.test('input is validated against the catalog inputSchema before anything starts', async (t) => {
  const app = await build(t)
  const workflowId = newId('hello')
  const res = await call(t, app, run({ workflowName: 'hello', input: { name: 42, extra: true }, workflowId }))
  t.equal(res.status, 400)
  t.equal(res.body.message, 'Invalid Payload')
  t.ok(res.body.issues.every((i: { in: string }) => i.in === 'input'))
  t.ok(res.body.issues.some((i: { path: string }) => i.path === '/name'))
  t.ok(res.body.issues.some((i: { path: string }) => i.path === '/extra'))
  const status = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/status`, route: '/workflow/{id}/status' })
  t.equal(status.status, 404, 'nothing was started')
})

t.test('an unknown workflow name is a 404; so is a catalog nobody ever published, named in the message', async (t) => {
  const app = await build(t)
  const unknown = await call(t, app, run({ workflowName: 'nope', input: {} }))
  t.equal(unknown.status, 404)
  t.equal(unknown.body.error, 'WorkflowNotFoundError')
  const noCatalog = await call(t, app, run({ workflowName: 'hello', input: { name: 'x' }, catalog: 'never-published' }))
  t.equal(noCatalog.status, 404)
  t.equal(noCatalog.body.error, 'WorkflowNotFoundError')
  t.match(noCatalog.body.message, /Catalog never-published .*SERVICE_CATALOG_ID=never-published/)
})

t.test('catalog wins over the deprecated taskQueue; taskQueue alone still routes', async (t) => {
  const app = await build(t)
  const both = await call(t, app, run({ workflowName: 'hello', input: { name: 'x' }, catalog: process.env.FLOWPORT_TEST_CATALOG, taskQueue: 'never-published' }))
  t.equal(both.status, 200)
  t.equal(both.body.status, 'completed')
  const alone = await call(t, app, run({ workflowName: 'hello', input: { name: 'x' }, taskQueue: 'never-published' }))
  t.equal(alone.status, 404, 'taskQueue is used when catalog is absent')
  t.match(alone.body.message, /never-published/)
})
