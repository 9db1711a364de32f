/**
 * Conditional requests against the real engine: `ETag` + `If-None-Match` → 304 on status, result,
 * input and history pages (catalog documents: test/catalog-openapi.test.ts), and `If-Match` on
 * signal, update, stop, terminate and reset → 412 PreconditionFailedError with nothing sent to the engine.
 */
import t from 'tap'
import type { Test } from 'tap'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, eventually, newId, start, waitClosed } from './helpers/workflows.js'
import { flowport, listening } from './helpers/flowport-cli.js'
import { FlowportClient, PreconditionFailedError } from '@flowport/client'

const get = (t: Test, app: App, url: string, route: string, headers?: Record<string, string>) =>
  call(t, app, { method: 'GET', url, route, headers })

/** Event types of a run's history, read from the engine itself, without the worker's own workflow-task events. */
async function eventTypes (app: App, workflowId: string, runId: string): Promise<string[]> {
  const history = await app.engine.client.workflow.getHandle(workflowId, runId).fetchHistory()
  return (history.events ?? []).map((e) => Object.keys(e).find((k) => k.endsWith('EventAttributes')) ?? '')
    .filter((type) => !type.startsWith('workflowTask'))
}

t.test('status: 304 while nothing changed, a new ETag once anything did, and it names the run', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'etag' })
  const url = `/workflow/${workflowId}/status`
  // The worker's first workflow task lengthens the history right after the start: wait until it settled.
  let previous = ''
  const etag = await eventually(async () => {
    const read = await get(t, app, url, '/workflow/{id}/status')
    const seen = previous
    previous = read.headers.etag as string
    return { etag: previous, settled: seen === previous && read.body.historyLength >= 4 }
  }, (r) => r.settled).then((r) => r.etag)
  t.match(etag, new RegExp(`^"${runId}\\.[A-Za-z0-9_-]{16}"$`), 'the status ETag names its run')

  const same = await get(t, app, url, '/workflow/{id}/status', { 'if-none-match': etag })
  t.equal(same.status, 304)
  t.equal(same.body, undefined, 'no body')
  t.equal(same.headers.etag, etag)
  t.equal((await get(t, app, url, '/workflow/{id}/status', { 'if-none-match': `W/${etag}` })).status, 304, 'a weak form matches too')
  t.equal((await get(t, app, url, '/workflow/{id}/status', { 'if-none-match': '"something-else"' })).status, 200, 'another tag gets the body')
  t.equal((await get(t, app, `/workflow/${workflowId}/runs/${runId}/status`, '/workflow/{id}/runs/{rid}/status', { 'if-none-match': etag })).status, 304,
    'the pinned form has the same representation')

  // The status changes: the run closes (and its historyLength grows).
  t.equal((await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/signal/approve`, route: '/workflow/{id}/signal/{name}', payload: { payload: { by: 'ada' } } })).status, 200)
  await waitClosed(app, workflowId)
  const changed = await get(t, app, url, '/workflow/{id}/status', { 'if-none-match': etag })
  t.equal(changed.status, 200, 'a changed status is sent again')
  t.not(changed.headers.etag, etag)
  t.equal(changed.body.status, 'completed')
  const closedTag = changed.headers.etag as string
  t.equal((await get(t, app, url, '/workflow/{id}/status', { 'if-none-match': closedTag })).status, 304, 'and is stable once closed')
})

t.test('result, input and history pages carry ETags and answer 304', async (t) => {
  const app = await build(t)
  const workflowId = newId('hello')
  const run = await call(t, app, { method: 'POST', url: '/workflow/run', route: '/workflow/run', payload: { workflowName: 'hello', input: { name: 'Ada' }, workflowId } })
  t.equal(run.status, 200)
  // A result names the trace's bucket once the worker has written it there: read once that is so, or the ETag may change between two reads.
  await eventually(async () => await get(t, app, `/workflow/${workflowId}/result`, '/workflow/{id}/result'), (res) => res.body.trace?.destinations.remote !== null)
  const reads: Array<[string, string]> = [
    [`/workflow/${workflowId}/result`, '/workflow/{id}/result'],
    [`/workflow/${workflowId}/runs/${run.body.runId as string}/result`, '/workflow/{id}/runs/{rid}/result'],
    [`/workflow/${workflowId}/input`, '/workflow/{id}/input'],
    [`/workflow/${workflowId}/runs/${run.body.runId as string}/input`, '/workflow/{id}/runs/{rid}/input'],
    [`/workflow/${workflowId}/history?pageSize=3`, '/workflow/{id}/history'],
    [`/workflow/${workflowId}/runs/${run.body.runId as string}/history`, '/workflow/{id}/runs/{rid}/history'],
    ['/workflow/catalog', '/workflow/catalog']
  ]
  for (const [url, route] of reads) {
    const first = await get(t, app, url, route)
    t.equal(first.status, 200, url)
    t.match(first.headers.etag, /^"[A-Za-z0-9_-]{16}"$/, `${url}: a strong ETag`)
    const again = await get(t, app, url, route, { 'if-none-match': `"nope", ${first.headers.etag as string}` })
    t.equal(again.status, 304, `${url}: 304`)
    t.equal(again.body, undefined)
  }
  const page1 = await get(t, app, `/workflow/${workflowId}/history?pageSize=3`, '/workflow/{id}/history')
  const page2 = await get(t, app, `/workflow/${workflowId}/history?pageSize=3&pageToken=${page1.body.nextPageToken as string}`, '/workflow/{id}/history',
    { 'if-none-match': page1.headers.etag as string })
  t.equal(page2.status, 200, 'another page is another representation')
  t.not(page2.headers.etag, page1.headers.etag)
  const open = await start(t, app, 'approval', { label: 'open' })
  const notDone = await get(t, app, `/workflow/${open.workflowId}/result`, '/workflow/{id}/result', { 'if-none-match': '*' })
  t.equal(notDone.status, 424, 'errors are never turned into 304')
  t.notOk(notDone.headers.etag)
  await app.engine.client.workflow.getHandle(open.workflowId).terminate('test cleanup')
})

t.test('If-Match: the run the caller saw, or 412 and nothing reaches the engine', async (t) => {
  const app = await build(t)
  const workflowId = newId('approval')
  const old = await start(t, app, 'approval', { label: 'first' }, workflowId)
  const statusTag = (await get(t, app, `/workflow/${workflowId}/status`, '/workflow/{id}/status')).headers.etag as string
  await app.engine.client.workflow.getHandle(workflowId).terminate('a newer run takes the id')
  const current = await start(t, app, 'approval', { label: 'second' }, workflowId)
  const before = await eventTypes(app, workflowId, current.runId)

  const calls = [
    { method: 'POST' as const, url: `/workflow/${workflowId}/signal/approve`, route: '/workflow/{id}/signal/{name}', payload: { payload: { by: 'ada' } } },
    { method: 'POST' as const, url: `/workflow/${workflowId}/update/relabel`, route: '/workflow/{id}/update/{name}', payload: { payload: { label: 'x' } } },
    { method: 'PATCH' as const, url: `/workflow/${workflowId}/stop`, route: '/workflow/{id}/stop' },
    { method: 'POST' as const, url: `/workflow/${workflowId}/terminate`, route: '/workflow/{id}/terminate' },
    { method: 'POST' as const, url: `/workflow/${workflowId}/runs/${current.runId}/terminate`, route: '/workflow/{id}/runs/{rid}/terminate' }
  ]
  for (const request of calls) {
    for (const ifMatch of [statusTag, `"${old.runId}"`]) {
      const refused = await call(t, app, { ...request, headers: { 'if-match': ifMatch } })
      t.equal(refused.status, 412, `${request.method} ${request.route} with If-Match ${ifMatch}`)
      t.equal(refused.body.error, 'PreconditionFailedError')
      t.equal(refused.body.runId, current.runId, 'the body names the run the request would have acted on')
      t.match(refused.body.message, old.runId)
    }
  }
  t.same(await eventTypes(app, workflowId, current.runId), before, 'nothing was sent to the engine')
  t.equal((await app.engine.client.workflow.getHandle(workflowId, old.runId).describe()).status.name, 'TERMINATED', 'the old run is untouched too')

  const updated = await call(t, app, { ...calls[1], headers: { 'if-match': `"${old.runId}", "${current.runId}"` } })
  t.equal(updated.status, 200, 'a list naming the current run matches')
  const currentTag = (await get(t, app, `/workflow/${workflowId}/status`, '/workflow/{id}/status')).headers.etag as string
  const stopped = await call(t, app, { ...calls[2], headers: { 'if-match': currentTag } })
  t.equal(stopped.status, 200, 'the current status ETag matches')
  t.equal(stopped.body.runId, current.runId)
})

t.test('If-Match on a closed run: 412 when it names another run, the usual 409 when it matches', async (t) => {
  const app = await build(t)
  const { workflowId } = await start(t, app, 'approval', { label: 'x' })
  await app.engine.client.workflow.getHandle(workflowId).terminate('closed')
  const res = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/terminate`, route: '/workflow/{id}/terminate', headers: { 'if-match': '"00000000-0000-0000-0000-000000000000"' } })
  t.equal(res.status, 412)
  const matching = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/terminate`, route: '/workflow/{id}/terminate', headers: { 'if-match': '*' } })
  t.equal(matching.status, 409, 'a matching precondition leaves the usual answer')
})

t.test('an If-Match that is no entity tag is a 400 naming the header, not a 412 (its schema states the form)', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'x' })
  for (const ifMatch of [runId, 'W/abc', '"unterminated', '"a" "b"']) {
    const res = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/signal/approve`, route: '/workflow/{id}/signal/{name}', payload: { payload: { by: 'ada' } }, headers: { 'if-match': ifMatch } })
    t.match({ status: res.status, body: res.body }, { status: 400, body: { error: 'ValidationError', issues: [{ path: '/if-match', in: 'headers', message: /entity tags/ }] } }, `If-Match: ${ifMatch}`)
  }
  const schedule = await call(t, app, { method: 'PUT', url: '/schedules/no-such-schedule', route: '/schedules/{scheduleId}', payload: { workflowName: 'hello', input: { name: 'x' }, spec: { every: [{ interval: '1h' }] } }, headers: { 'if-match': 'AAAAAAAAAAE' } })
  t.match({ status: schedule.status, body: schedule.body }, { status: 400, body: { issues: [{ path: '/if-match' }] } }, 'a schedule\'s If-Match too')
  const listed = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/signal/approve`, route: '/workflow/{id}/signal/{name}', payload: { payload: { by: 'ada' } }, headers: { 'if-match': `W/"${runId}", "other"` } })
  t.equal(listed.status, 200, 'weak and listed tags are entity tags')
})

t.test('If-Match on reset: 412 names another run and nothing is reset; the run it names is reset', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'hello', { name: 'x' })
  await waitClosed(app, workflowId)
  const url = `/workflow/${workflowId}/reset`
  const refused = await call(t, app, { method: 'POST', url, route: '/workflow/{id}/reset', payload: { from: 'start' }, headers: { 'if-match': '"00000000-0000-0000-0000-000000000000"' } })
  t.equal(refused.status, 412)
  t.match(refused.body, { error: 'PreconditionFailedError' })
  t.equal((await app.engine.client.workflow.getHandle(workflowId).describe()).runId, runId, 'no new run')
  const reset = await call(t, app, { method: 'POST', url, route: '/workflow/{id}/reset', payload: { from: 'start' }, headers: { 'if-match': `"${runId}"` } })
  t.equal(reset.status, 200, 'the run the caller saw is reset')
  t.not(reset.body.runId, runId)
  await waitClosed(app, workflowId)
})

t.test('the CLI and the client send If-Match with --if-match / ifMatch', async (t) => {
  const { app, url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const workflowId = newId('approval')
  const old = await start(t, app, 'approval', { label: 'first' }, workflowId)
  await app.engine.client.workflow.getHandle(workflowId).terminate('a newer run takes the id')
  const current = await start(t, app, 'approval', { label: 'second' }, workflowId)

  const refused = await flowport(['terminate', workflowId, '--if-match', old.runId], { env })
  t.equal(refused.code, 2, 'a failed precondition is a usage error (exit 2)')
  t.match(refused.stderr, /^PreconditionFailedError: If-Match names "[^"]+", but the run this request acts on is /)
  const client = new FlowportClient({ baseUrl: url })
  await t.rejects(client.signal(workflowId, 'approve', { by: 'ada' }, { ifMatch: old.runId }), PreconditionFailedError)
  const updated = await flowport(['update', workflowId, 'relabel', '{"label":"z"}', '--if-match', current.runId], { env })
  t.equal(updated.code, 0, updated.stderr)
  t.same(JSON.parse(updated.stdout), { previous: 'second' })
  const stopped = await client.stop(workflowId, { ifMatch: current.runId })
  t.equal(stopped.runId, current.runId)
})
