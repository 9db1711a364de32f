/**
 * Idempotency-Key on POST /workflow/start and /workflow/run against the real engine
 * (plugins/app/run-starter/idempotency.ts, docs/idempotency.md).
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { build } from './helpers/app.js'
import { bearer, keysFile } from './helpers/keys.js'
import { call, newId, waitClosed } from './helpers/workflows.js'
import { canonicalJson, keyedWorkflowId } from '../plugins/app/run-starter/idempotency.js'

const startCall = (payload: unknown, key?: string) => ({
  method: 'POST' as const, url: '/workflow/start', route: '/workflow/start', payload, headers: key === undefined ? undefined : { 'idempotency-key': key }
})
const runCall = (payload: unknown, key: string) => ({ method: 'POST' as const, url: '/workflow/run', route: '/workflow/run', payload, headers: { 'idempotency-key': key } })

/** Runs of one workflow id, as the engine lists them (visibility is eventually consistent: read until `expected`). */
async function runsOf (app: Awaited<ReturnType<typeof build>>, workflowId: string, expected: number): Promise<string[]> {
  let runs: string[] = []
  for (let i = 0; i < 60; i++) {
    runs = []
    for await (const run of app.engine.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(run.runId)
    if (runs.length >= expected) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return runs
}

t.test('a retry with the same key and body answers the same run and starts nothing, open or closed', async (t) => {
  const app = await build(t)
  const key = randomUUID()
  const body = { workflowName: 'approval', input: { label: 'idem' } }
  const first = await call(t, app, startCall(body, key))
  t.equal(first.status, 200)
  t.match(first.body.workflowId, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a name-based UUID of catalog and key')
  t.equal(first.body.workflowId, keyedWorkflowId(process.env.FLOWPORT_TEST_CATALOG ?? '', key))
  const open = await call(t, app, startCall(body, key))
  t.same(open.body, first.body, 'while the run is open')
  const quoted = await call(t, app, startCall(body, `"${key}"`))
  t.same(quoted.body, first.body, 'the quoted Structured Field form is the same key')
  await app.engine.client.workflow.getHandle(first.body.workflowId).signal('approve', { by: 'test' })
  await waitClosed(app, first.body.workflowId)
  const closed = await call(t, app, startCall(body, key))
  t.equal(closed.status, 200)
  t.same(closed.body, first.body, 'after the run closed')
  t.same(await runsOf(app, first.body.workflowId, 1), [first.body.runId], 'one run in the engine')
})

t.test('50 concurrent requests with one key start exactly one run', async (t) => {
  const app = await build(t)
  const key = randomUUID()
  const body = { workflowName: 'approval', input: { label: 'many' } }
  const answers = await Promise.all(Array.from({ length: 50 }, async () => await call(t, app, startCall(body, key))))
  t.same(new Set(answers.map((a) => a.status)), new Set([200]))
  const ids = new Set(answers.map((a) => `${a.body.workflowId as string}/${a.body.runId as string}`))
  t.equal(ids.size, 1, 'every answer names one run')
  const { workflowId, runId } = answers[0].body
  t.same(await runsOf(app, workflowId, 1), [runId], 'the engine has one run')
  await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup')
})

t.test('the same key with another body is a 422; the key is scoped to the catalog', async (t) => {
  const app = await build(t)
  const key = randomUUID()
  const first = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'one' } }, key))
  t.equal(first.status, 200)
  const other = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'two' } }, key))
  t.equal(other.status, 422)
  t.equal(other.body.error, 'IdempotencyKeyReusedError')
  t.equal(other.body.workflowId, first.body.workflowId)
  t.equal(other.body.runId, first.body.runId)
  const otherName = await call(t, app, startCall({ workflowName: 'sleepy', input: { steps: 1, delayMs: 0 } }, key))
  t.equal(otherName.status, 422, 'another workflow name')
  t.not(keyedWorkflowId('other-catalog', key), first.body.workflowId, 'another catalog names another id')
  t.equal(canonicalJson({ b: [1, { d: 1, c: 2 }], a: 'x' }), canonicalJson({ a: 'x', b: [1, { c: 2, d: 1 }] }), 'key order does not matter')
  const reordered = await call(t, app, startCall({ input: { name: 'one' }, workflowName: 'hello' }, key))
  t.same(reordered.body, first.body, 'the same body in another key order is the same request')
})

t.test('with an explicit workflowId the key is kept in that run; another run of the id is a 409 or a new run', async (t) => {
  const app = await build(t)
  const workflowId = newId('idem')
  const key = randomUUID()
  const body = { workflowName: 'hello', input: { name: 'x' }, workflowId }
  const first = await call(t, app, startCall(body, key))
  t.equal(first.status, 200)
  t.equal(first.body.workflowId, workflowId)
  await waitClosed(app, workflowId)
  t.same((await call(t, app, startCall(body, key))).body, first.body, 'a retry finds the closed run')
  const otherKey = await call(t, app, startCall(body, randomUUID()))
  t.equal(otherKey.status, 200, 'another key may reuse the closed id, as a start without a key may')
  t.not(otherKey.body.runId, first.body.runId)
  const held = await call(t, app, startCall({ workflowName: 'approval', input: { label: 'held' }, workflowId: newId('held') }))
  const conflict = await call(t, app, startCall({ workflowName: 'approval', input: { label: 'held' }, workflowId: held.body.workflowId }, randomUUID()))
  t.equal(conflict.status, 409, 'an open run started without this key')
  t.equal(conflict.body.error, 'WorkflowAlreadyStartedError')
  t.equal(conflict.body.runId, held.body.runId)
  await app.engine.client.workflow.getHandle(held.body.workflowId).terminate('test cleanup')
})

t.test('a run that continued as new is still found: its first run is answered', async (t) => {
  const app = await build(t)
  const key = randomUUID()
  const body = { workflowName: 'relay', input: { hops: 2 } }
  const first = await call(t, app, startCall(body, key))
  await waitClosed(app, first.body.workflowId)
  const again = await call(t, app, startCall(body, key))
  t.same(again.body, first.body)
})

t.test('/run with a key: a retry answers the same result and starts nothing', async (t) => {
  const app = await build(t)
  const key = randomUUID()
  const body = { workflowName: 'hello', input: { name: 'Ada' } }
  const first = await call(t, app, runCall(body, key))
  t.equal(first.status, 200)
  t.equal(first.body.status, 'completed')
  const again = await call(t, app, runCall(body, key))
  t.same(again.body, first.body)
  const concurrent = await Promise.all(Array.from({ length: 10 }, async () => await call(t, app, runCall({ workflowName: 'hello', input: { name: 'Bo' } }, `${key}-b`))))
  t.equal(new Set(concurrent.map((c) => c.body.runId)).size, 1, 'concurrent /run requests wait for one run')
  t.same(await runsOf(app, concurrent[0].body.workflowId, 1), [concurrent[0].body.runId])
  const reused = await call(t, app, runCall({ workflowName: 'hello', input: { name: 'Eve' } }, key))
  t.equal(reused.status, 422)
  t.equal(reused.body.error, 'IdempotencyKeyReusedError')
})

t.test('a malformed key is a 400 before anything starts', async (t) => {
  const app = await build(t)
  const body = { workflowName: 'hello', input: { name: 'x' } }
  for (const [why, key] of [['empty', ''], ['256 characters', 'k'.repeat(256)], ['a space', 'a b'], ['a control character', 'a\tb'], ['non-ASCII', 'clé'], ['empty quotes', '""']]) {
    const res = await app.inject({ method: 'POST', url: '/workflow/start', payload: body, headers: { 'idempotency-key': key } })
    t.equal(res.statusCode, 400, why)
    t.equal(res.json().error, 'ValidationError', why)
    t.equal(res.json().issues[0].in, 'headers', why)
  }
  const longest = await call(t, app, startCall(body, 'k'.repeat(255)))
  t.equal(longest.status, 200, '255 characters are a key')
})

t.test('with API keys, an Idempotency-Key is the caller key\'s own: two keys sending one key start two runs', async (t) => {
  const { keys, file } = keysFile(t, [{ id: 'shop', scopes: ['run', 'read'] }, { id: 'billing', scopes: ['run', 'read'] }])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file })
  const as = (id: string, payload: unknown, key: string) => ({ ...startCall(payload, key), headers: { ...bearer(keys[id]!), 'idempotency-key': key } })
  const key = randomUUID()
  const body = { workflowName: 'approval', input: { label: 'per key' } }
  const shop = await call(t, app, as('shop', body, key))
  const billing = await call(t, app, as('billing', body, key))
  t.equal(shop.status, 200)
  t.equal(billing.status, 200)
  t.not(billing.body.workflowId, shop.body.workflowId, 'one run each')
  for (const started of [shop, billing]) t.teardown(() => app.engine.client.workflow.getHandle(started.body.workflowId).terminate('test over').catch(() => undefined))
  t.same((await call(t, app, as('shop', body, key))).body, shop.body, 'a retry with the same key answers its own run')
  t.same((await call(t, app, as('billing', body, key))).body, billing.body)

  // With an explicit id, the other key's open run holds it: a 409, not that run.
  const workflowId = newId('per-key')
  const mine = await call(t, app, as('shop', { ...body, workflowId }, key))
  t.equal(mine.status, 200)
  t.teardown(() => app.engine.client.workflow.getHandle(workflowId).terminate('test over').catch(() => undefined))
  const theirs = await call(t, app, as('billing', { ...body, workflowId }, key))
  t.equal(theirs.status, 409)
  t.equal(theirs.body.error, 'WorkflowAlreadyStartedError')
})
