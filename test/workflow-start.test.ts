import t from 'tap'
import { build } from './helpers/app.js'
import { call, newId, start, waitClosed } from './helpers/workflows.js'

const startCall = (payload: unknown) => ({ method: 'POST' as const, url: '/workflow/start', route: '/workflow/start', payload })

t.test('start answers the ids at once, while the run is still open', async (t) => {
  const app = await build(t)
  const workflowId = newId('approval')
  const res = await call(t, app, startCall({ workflowName: 'approval', input: { label: 'x' }, workflowId }))
  t.equal(res.status, 200)
  t.same(Object.keys(res.body).sort(), ['kind', 'runId', 'workflowId'])
  t.equal(res.body.workflowId, workflowId)
  const described = await app.engine.client.workflow.getHandle(workflowId).describe()
  t.equal(described.status.name, 'RUNNING')
  t.equal(described.runId, res.body.runId)
  t.equal(described.taskQueue, process.env.FLOWPORT_TEST_CATALOG, 'the task queue is the catalog id')
  await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup')
})

t.test('without a workflowId a random one is generated', async (t) => {
  const app = await build(t)
  const res = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'x' } }))
  t.equal(res.status, 200)
  t.match(res.body.workflowId, /^[0-9a-f-]{36}$/)
})

t.test('starting an id whose run is open is a 409 naming the running run', async (t) => {
  const app = await build(t)
  const first = await start(t, app, 'approval', { label: 'first' })
  const again = await call(t, app, startCall({ workflowName: 'approval', input: { label: 'second' }, workflowId: first.workflowId }))
  t.equal(again.status, 409)
  t.equal(again.body.error, 'WorkflowAlreadyStartedError')
  t.equal(again.body.workflowId, first.workflowId)
  t.equal(again.body.runId, first.runId)
  await app.engine.client.workflow.getHandle(first.workflowId).terminate('test cleanup')
})

t.test('the id of a closed run may be reused: a new run starts', async (t) => {
  const app = await build(t)
  const first = await start(t, app, 'hello', { name: 'one' })
  await waitClosed(app, first.workflowId)
  const second = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'two' }, workflowId: first.workflowId }))
  t.equal(second.status, 200)
  t.not(second.body.runId, first.runId)
  await waitClosed(app, first.workflowId)
  const latest = await call(t, app, { method: 'GET', url: `/workflow/${first.workflowId}/result`, route: '/workflow/{id}/result' })
  t.same(latest.body.output, { greeting: 'Hello, two!' })
  const pinned = await call(t, app, { method: 'GET', url: `/workflow/${first.workflowId}/runs/${first.runId}/result`, route: '/workflow/{id}/runs/{rid}/result' })
  t.same(pinned.body.output, { greeting: 'Hello, one!' }, 'the first run keeps its own result')
})

t.test('start validates like run: unknown name 404, bad input 400, bad body 400', async (t) => {
  const app = await build(t)
  const unknown = await call(t, app, startCall({ workflowName: 'nope', input: {} }))
  t.equal(unknown.status, 404)
  t.equal(unknown.body.error, 'WorkflowNotFoundError')
  const badInput = await call(t, app, startCall({ workflowName: 'sleepy', input: { steps: 0, delayMs: -1 } }))
  t.equal(badInput.status, 400)
  t.same(badInput.body.issues.map((i: { path: string, in: string }) => `${i.in}:${i.path}`).sort(), ['input:/delayMs', 'input:/steps'])
  const timeout = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'x' }, timeout: 5 }))
  t.equal(timeout.status, 400, 'timeout belongs to /run only')
})

t.test('an id the engine would refuse is a 400, not a 500: over 1000 UTF-8 bytes, or a lone surrogate', async (t) => {
  const app = await build(t)
  const wide = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'x' }, workflowId: 'é'.repeat(1000) }))
  t.equal(wide.status, 400, '1000 characters, 2000 bytes')
  t.same(wide.body.issues, [{ path: '/workflowId', in: 'body', message: 'must NOT be longer than 1000 bytes in UTF-8' }])
  const atLimit = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'x' }, workflowId: `${newId('w')}-${'é'.repeat(400)}` }))
  t.equal(atLimit.status, 200, 'fewer bytes than the limit still start')
  const res = await app.inject({ method: 'POST', url: '/workflow/start', headers: { 'content-type': 'application/json' }, payload: '{"workflowName":"hello","input":{"name":"x"},"workflowId":"a\\udc00"}' })
  t.equal(res.statusCode, 400)
  t.same(res.json().issues, [{ path: '/workflowId', in: 'body', message: 'must be well-formed Unicode (it contains a lone surrogate)' }])
})

t.test('an id a fixed path segment under /workflow/ takes is refused at start, naming every such word; the catalog routes still answer', async (t) => {
  const app = await build(t)
  // The words are whatever the registered routes take right under /workflow/, not a list kept by hand.
  const fixed = [...new Set(app.access.routes.map((r) => /^\/workflow\/([^/:]+)/.exec(r.url)?.[1]).filter((w) => w !== undefined))].sort()
  t.same(fixed, ['batch', 'catalog', 'run', 'runs', 'start'], 'the routes take these words')
  const words = fixed.map((w) => `"${w}"`).join(', ')
  for (const workflowId of fixed) {
    const res = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'x' }, workflowId }))
    t.equal(res.status, 400, workflowId)
    t.same(res.body.issues, [{ path: '/workflowId', in: 'body', message: `is reserved: the paths under /workflow/ take ${words}, and ids starting with "__flowport" are internal` }],
      `${workflowId}: the issue names the reserved words`)
  }
  const withUpdate = await call(t, app, startCall({ workflowName: 'approval', input: { label: 'a' }, workflowId: 'runs', update: { name: 'relabel', payload: { label: 'b' } } }))
  t.equal(withUpdate.status, 400, 'update-with-start too')
  const ran = await call(t, app, { method: 'POST', url: '/workflow/run', route: '/workflow/run', payload: { workflowName: 'hello', input: { name: 'x' }, workflowId: 'catalog' } })
  t.equal(ran.status, 400, 'and a run')
  t.equal((await call(t, app, { method: 'GET', url: '/workflow/catalog', route: '/workflow/catalog' })).status, 200)
  t.equal((await call(t, app, { method: 'GET', url: '/workflow/catalog/openapi.json', route: '/workflow/catalog/openapi.json' })).status, 200)
  const catalogId = process.env.FLOWPORT_TEST_CATALOG as string
  t.equal((await call(t, app, { method: 'GET', url: `/workflow/catalog/${catalogId}`, route: '/workflow/catalog/{catalogId}' })).status, 200)
  const almost = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'x' }, workflowId: newId('catalog') }))
  t.equal(almost.status, 200, 'an id that only starts with a reserved word is fine')
})
