/**
 * Non-blocking updates: `Prefer: respond-async` on POST /workflow/{id}/update/{name} answers 202 with
 * `Location` of GET /workflow/{id}/updates/{updateId}, which reads the update's state from the
 * real engine: accepted while its handler runs, then completed with its result, or failed. The
 * client's updateAsync/updateState and the CLI's `update --async` and `update-state` on top.
 */
import t from 'tap'
import type { Test } from 'tap'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, eventually, start, waitClosed } from './helpers/workflows.js'
import { flowport, listening } from './helpers/flowport-cli.js'
import { FlowportClient } from '@flowport/client'

const asyncUpdate = (t: Test, app: App, id: string, name: string, body?: unknown, prefer = 'respond-async') =>
  call(t, app, { method: 'POST', url: `/workflow/${id}/update/${name}`, route: '/workflow/{id}/update/{name}', payload: body, headers: { prefer } })
const state = (t: Test, app: App, location: string, headers?: Record<string, string>) =>
  call(t, app, { method: 'GET', url: location, route: '/workflow/{id}/updates/{updateId}', headers })

t.test('respond-async: 202 once accepted, the state is `accepted` while the handler runs, then its result', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'faulty', {})
  const accepted = await asyncUpdate(t, app, workflowId, 'held', undefined, 'wait=1, respond-async')
  t.equal(accepted.status, 202, 'answered before the handler returned')
  t.match(accepted.body, { workflowId, runId, updateId: /^[0-9a-f-]{36}$/ })
  t.equal(accepted.headers['preference-applied'], 'respond-async')
  const location = accepted.headers.location as string
  t.equal(location, `/workflow/${workflowId}/updates/${accepted.body.updateId as string}`)

  const running = await state(t, app, location)
  t.equal(running.status, 200)
  t.same(running.body, { workflowId, runId, updateId: accepted.body.updateId, state: 'accepted', result: null, error: null })
  t.equal((await state(t, app, location, { 'if-none-match': running.headers.etag as string })).status, 304, 'unchanged: 304')

  t.equal((await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/signal/finish`, route: '/workflow/{id}/signal/{name}' })).status, 200)
  await waitClosed(app, workflowId)
  const done = await state(t, app, location, { 'if-none-match': running.headers.etag as string })
  t.equal(done.status, 200, 'changed: sent again')
  t.same(done.body, { workflowId, runId, updateId: accepted.body.updateId, state: 'completed', result: { released: true }, error: null })
})

t.test('respond-async: a rejected update is still a 422; a failing handler shows as `failed`', async (t) => {
  const app = await build(t)
  const approval = await start(t, app, 'approval', { label: 'old' })
  const rejected = await asyncUpdate(t, app, approval.workflowId, 'relabel', { payload: { label: '   ' } })
  t.equal(rejected.status, 422)
  t.equal(rejected.body.error, 'UpdateRejectedError')
  t.notOk(rejected.headers.location)
  const relabeled = await asyncUpdate(t, app, approval.workflowId, 'relabel', { payload: { label: 'new' } })
  t.equal(relabeled.status, 202)
  // The handler returns at once; the state read may still find it accepted, so read until it is not.
  let read = await state(t, app, relabeled.headers.location as string)
  for (let i = 0; i < 40 && read.body.state === 'accepted'; i++) read = await state(t, app, relabeled.headers.location as string)
  t.same(read.body.result, { previous: 'old' })
  t.equal(read.body.state, 'completed')
  await app.engine.client.workflow.getHandle(approval.workflowId).terminate('test cleanup')

  const faulty = await start(t, app, 'faulty', {})
  const broken = await asyncUpdate(t, app, faulty.workflowId, 'broken', { payload: { reason: 'on purpose' } })
  t.equal(broken.status, 202, 'the validator passed: accepted')
  let failed = await state(t, app, broken.headers.location as string)
  for (let i = 0; i < 40 && failed.body.state === 'accepted'; i++) failed = await state(t, app, broken.headers.location as string)
  t.equal(failed.body.state, 'failed')
  t.match(failed.body.error, /the update handler failed: on purpose/)
  t.equal(failed.body.result, null)

  const unknown = await state(t, app, `/workflow/${faulty.workflowId}/updates/no-such-update`)
  t.equal(unknown.status, 404)
  t.equal(unknown.body.error, 'UpdateNotFoundError')
  await app.engine.client.workflow.getHandle(faulty.workflowId).terminate('test cleanup')
})

t.test('without respond-async the update still answers 200 with its result', async (t) => {
  const app = await build(t)
  const { workflowId } = await start(t, app, 'approval', { label: 'a' })
  const res = await asyncUpdate(t, app, workflowId, 'relabel', { payload: { label: 'b' } }, 'wait=5')
  t.equal(res.status, 200)
  t.same(res.body.result, { previous: 'a' })
  t.notOk(res.headers['preference-applied'])
  await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup')
})

t.test('the client (updateAsync, updateState) and `flowport update --async`', async (t) => {
  const { app, url } = await listening(t)
  const { workflowId, runId } = await start(t, app, 'faulty', {})
  const client = new FlowportClient({ baseUrl: url })
  const accepted = await client.updateAsync(workflowId, 'held')
  t.match(accepted, { workflowId, runId, updateId: /^[0-9a-f-]{36}$/ })
  t.equal((await client.updateState(workflowId, accepted.updateId)).state, 'accepted')
  const cli = await flowport(['update', workflowId, 'held', '--async', '--json'], { env: { FLOWPORT_URL: url } })
  t.equal(cli.code, 0, cli.stderr)
  const fromCli = JSON.parse(cli.stdout)
  t.match(fromCli, { workflowId, runId, updateId: /^[0-9a-f-]{36}$/ })
  await client.signal(workflowId, 'finish')
  await waitClosed(app, workflowId)
  t.same(await client.updateState(workflowId, fromCli.updateId), { workflowId, runId, updateId: fromCli.updateId, state: 'completed', result: { released: true }, error: null })
})

t.test('`flowport update-state`: accepted (exit 4), failed (exit 1), completed (its result), unknown (exit 2)', async (t) => {
  const { app, url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const client = new FlowportClient({ baseUrl: url })
  const { workflowId, runId } = await start(t, app, 'faulty', {})
  t.teardown(async () => { await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup').catch(() => undefined) })
  const held = await client.updateAsync(workflowId, 'held')

  const running = await flowport(['update-state', workflowId, held.updateId], { env })
  t.equal(running.code, 4, 'the handler still runs: exit 4, as `result` of an open run')
  t.equal(running.stdout, '')
  t.same(running.stderr.trim().split('\n').length, 1, 'one line on stderr')
  t.match(running.stderr, new RegExp(`^Update ${held.updateId} is accepted and its handler still runs \\(workflow ${workflowId}, run ${runId}\\)`))
  const runningJson = await flowport(['update-state', workflowId, held.updateId, '--json'], { env })
  t.equal(runningJson.code, 4)
  t.same(JSON.parse(runningJson.stdout), { workflowId, runId, updateId: held.updateId, state: 'accepted', result: null, error: null })

  const broken = await client.updateAsync(workflowId, 'broken', { reason: 'on purpose' })
  // The handler throws at once, but the engine may report it accepted for a moment: wait through the client.
  t.equal((await eventually(async () => await client.updateState(workflowId, broken.updateId), (s) => s.state !== 'accepted')).state, 'failed')
  const failed = await flowport(['update-state', workflowId, broken.updateId], { env })
  t.equal(failed.code, 1, 'the handler threw: exit 1')
  t.equal(failed.stdout, '')
  t.same(failed.stderr.trim().split('\n').length, 1, 'one line on stderr')
  t.match(failed.stderr, /^Update failed: the update handler failed: on purpose \(workflow /)

  await client.signal(workflowId, 'finish')
  await waitClosed(app, workflowId)
  const done = await flowport(['update-state', workflowId, held.updateId], { env })
  t.equal(done.code, 0, done.stderr)
  t.same(JSON.parse(done.stdout), { released: true }, 'the handler\'s result on stdout')

  const unknown = await flowport(['update-state', workflowId, 'no-such-update'], { env })
  t.equal(unknown.code, 2)
  t.same(unknown.stderr.trim().split('\n').length, 1, 'one line on stderr')
  t.match(unknown.stderr, /^UpdateNotFoundError: /)
  const help = await flowport(['help'])
  t.match(help.stdout, /\n {2}update-state /, 'listed in the help')
})
