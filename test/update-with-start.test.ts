/**
 * Update-with-start against the real engine: `update` in a start or run body starts the run unless
 * an open run holds the id, and delivers the update to whichever run it is (the `approval`
 * example's `relabel` update returns the previous label; its validator refuses an empty one).
 */
import t from 'tap'
import type { Test } from 'tap'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { bearer, keysFile } from './helpers/keys.js'
import { call, newId, start, waitClosed } from './helpers/workflows.js'
import { testCatalog } from './helpers/env.js'
import { FlowportClient } from '@flowport/client'
import { flowport, listening } from './helpers/flowport-cli.js'

const startWith = (t: Test, app: App, body: Record<string, unknown>, headers?: Record<string, string>) =>
  call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: body, headers })
const approval = (workflowId: string, label: string, update: unknown) => ({ workflowName: 'approval', workflowId, input: { label }, update })
const labelOf = async (app: App, workflowId: string) => (await app.engine.client.workflow.getHandle(workflowId).query<{ label: string }>('state')).label

t.test('no open run: the run starts and takes the update; an open run takes the next one and nothing new starts', async (t) => {
  const app = await build(t)
  const workflowId = newId('session')
  const first = await startWith(t, app, approval(workflowId, 'draft', { name: 'relabel', payload: { label: 'first' } }))
  t.equal(first.status, 200)
  t.match(first.body, { workflowId, runId: /^[0-9a-f-]{36}$/, updateId: /^[0-9a-f-]{36}$/, result: { previous: 'draft' } })
  t.equal(await labelOf(app, workflowId), 'first')

  const second = await startWith(t, app, approval(workflowId, 'not used', { name: 'relabel', payload: { label: 'second' } }))
  t.equal(second.status, 200)
  t.match(second.body, { workflowId, runId: first.body.runId, result: { previous: 'first' } }, 'the open run took it')
  t.not(second.body.updateId, first.body.updateId)
  const input = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/input`, route: '/workflow/{id}/input' })
  t.same(input.body.input, { label: 'draft' }, 'the second input started nothing')
  await app.engine.client.workflow.getHandle(workflowId).terminate('test over')
})

t.test('a rejected update is a 422 naming the run; the run keeps what it had', async (t) => {
  const app = await build(t)
  const workflowId = newId('session')
  const open = await start(t, app, 'approval', { label: 'kept' }, workflowId)
  const rejected = await startWith(t, app, approval(workflowId, 'x', { name: 'relabel', payload: { label: ' ' } }))
  t.equal(rejected.status, 422)
  t.match(rejected.body, { error: 'UpdateRejectedError', workflowId, runId: open.runId, message: /label must not be empty/ })
  t.equal(await labelOf(app, workflowId), 'kept')

  // On a new id, the engine starts the run even though its first update is refused.
  const fresh = newId('session')
  const refusedAtStart = await startWith(t, app, approval(fresh, 'new', { name: 'relabel', payload: { label: '' } }))
  t.equal(refusedAtStart.status, 422)
  t.match(refusedAtStart.body, { error: 'UpdateRejectedError', workflowId: fresh, runId: /^[0-9a-f-]{36}$/ })
  const status = await call(t, app, { method: 'GET', url: `/workflow/${fresh}/status`, route: '/workflow/{id}/status' })
  t.match(status.body, { runId: refusedAtStart.body.runId, status: 'running' })
  for (const id of [workflowId, fresh]) await app.engine.client.workflow.getHandle(id).terminate('test over')
})

t.test('checked before anything starts: unknown update 404, bad payload 400, combinations 400, another workflow on the id 409', async (t) => {
  const app = await build(t)
  const workflowId = newId('session')
  const unknown = await startWith(t, app, approval(workflowId, 'x', { name: 'rename' }))
  t.equal(unknown.status, 404)
  t.match(unknown.body, { error: 'UpdateNotFoundError', message: /declares no update named rename/ })
  const payload = await startWith(t, app, approval(workflowId, 'x', { name: 'relabel', payload: { label: 5 } }))
  t.equal(payload.status, 400)
  t.match(payload.body.issues, [{ in: 'payload', path: '/label' }])
  const input = await startWith(t, app, { ...approval(workflowId, 'x', { name: 'relabel', payload: { label: 'y' } }), input: {} })
  t.equal(input.status, 400, 'the input is checked too')

  const update = { name: 'relabel', payload: { label: 'y' } }
  const keyed = await startWith(t, app, approval(workflowId, 'x', update), { 'idempotency-key': 'k-1' })
  t.match(keyed, { status: 400, body: { issues: [{ path: '/update', message: /Idempotency-Key/ }] } })
  const delayed = await startWith(t, app, { ...approval(workflowId, 'x', update), startDelay: '1m' })
  t.match(delayed, { status: 400, body: { issues: [{ path: '/startDelay' }] } })
  const hooked = await startWith(t, app, { ...approval(workflowId, 'x', update), webhook: { url: 'https://example.com/hook' } })
  t.match(hooked, { status: 400, body: { issues: [{ path: '/webhook' }] } })
  const none = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/status`, route: '/workflow/{id}/status' })
  t.equal(none.status, 404, 'nothing was started')

  const other = await start(t, app, 'faulty', {}, workflowId)
  const clash = await startWith(t, app, approval(workflowId, 'x', update))
  t.equal(clash.status, 409)
  t.match(clash.body, { error: 'WorkflowAlreadyStartedError', workflowId, runId: other.runId, message: /already running as faulty/ })
  await app.engine.client.workflow.getHandle(workflowId).terminate('test over')
})

t.test('/workflow/run with update waits for the run that took it, with that run\'s own input', async (t) => {
  const app = await build(t)
  const workflowId = newId('session')
  const open = await start(t, app, 'approval', { label: 'original' }, workflowId)
  const running = call(t, app, {
    method: 'POST',
    url: '/workflow/run',
    route: '/workflow/run',
    payload: { ...approval(workflowId, 'ignored', { name: 'relabel', payload: { label: 'renamed' } }), timeout: 60_000 }
  })
  // The update reaches the run before the approval: the run ends with the new label.
  const handle = app.engine.client.workflow.getHandle(workflowId)
  for (let label = await labelOf(app, workflowId); label !== 'renamed'; label = await labelOf(app, workflowId)) await new Promise((resolve) => setTimeout(resolve, 100))
  await handle.signal('approve', { by: 'Ada' })
  const result = await running
  t.equal(result.status, 200)
  t.match(result.body, { workflowId, runId: open.runId, status: 'completed', input: { label: 'original' }, output: { label: 'renamed', approvedBy: 'Ada' } })
  t.equal(await waitClosed(app, workflowId), 'COMPLETED')
})

t.test('the update needs the interact scope as well as run', async (t) => {
  const { keys, file } = keysFile(t, [{ id: 'starter', scopes: ['run', 'read'] }, { id: 'session', scopes: ['run', 'read', 'interact'] }])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file })
  const workflowId = newId('session')
  const body = approval(workflowId, 'x', { name: 'relabel', payload: { label: 'y' } })
  t.match(await startWith(t, app, body, bearer(keys.starter!)), { status: 403, body: { message: 'Key starter lacks scope interact' } })
  t.match(await startWith(t, app, body, bearer(keys.session!)), { status: 200, body: { workflowId, result: { previous: 'x' } } })
  await app.engine.client.workflow.getHandle(workflowId).terminate('test over')
})

t.test('client updateWithStart and `flowport start --update` answer the update result', async (t) => {
  const { url } = await listening(t)
  const client = new FlowportClient({ baseUrl: url })
  const workflowId = newId('session')
  const created = await client.updateWithStart('approval', { label: 'a' }, { name: 'relabel', payload: { label: 'b' } }, { workflowId, catalog: testCatalog() })
  t.match(created, { workflowId, result: { previous: 'a' } })
  const told = await client.updateWithStart('approval', { label: 'unused' }, { name: 'relabel', payload: { label: 'c' } }, { workflowId, catalog: testCatalog() })
  t.match(told, { workflowId, runId: created.runId, result: { previous: 'b' } })
  const cli = await flowport(['start', 'approval', '{"label":"unused"}', '--id', workflowId, '--update', 'relabel', '--update-payload', '{"label":"d"}'], { env: { FLOWPORT_URL: url } })
  t.equal(cli.code, 0, cli.stderr)
  t.same(JSON.parse(cli.stdout), { previous: 'c' }, 'prints the update\'s result')
  t.match(cli.stderr, `Update relabel ran in run ${created.runId}`)
  const noId = await flowport(['start', 'approval', '{"label":"x"}', '--update', 'relabel'], { env: { FLOWPORT_URL: url } })
  t.equal(noId.code, 2, 'a usage error')
  t.match(noId.stderr, /--update needs --id/)
  await client.terminate(workflowId, { reason: 'test over' })
})
