import t from 'tap'
import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import { build } from './helpers/app.js'
import { assertContract } from './helpers/contract.js'
import { engineClient, eventIds, openSse, payloadPaths, startExample, startIdle, uniqueId, type Frame } from './helpers/history.js'
import { encodeCursor } from '../plugins/app/history/cursor.js'

const ROUTE = '/workflow/{id}/history/stream'
const PINNED = '/workflow/{id}/runs/{rid}/history/stream'

async function listen (t: Test, env: Record<string, string> = {}) {
  const app = await build(t, env)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base }
}

const done = (frames: Frame[]) => JSON.parse(frames.at(-1)!.data)

t.test('a finished run streams workflow, its whole history, done, then closes', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  await handle.signal('poke', { n: 1 })
  await handle.terminate('enough')
  const { base } = await listen(t)

  const sse = await openSse(`${base}/workflow/${handle.workflowId}/history/stream`)
  t.equal(sse.statusCode, 200)
  t.match(sse.headers['content-type'], /^text\/event-stream/)
  assertContract(t, 'GET', ROUTE, { statusCode: sse.statusCode, body: await sse.body(), headers: sse.headers })
  const { frames } = sse
  t.same(frames.map((f) => f.event), ['workflow', ...frames.slice(1, -1).map(() => 'history'), 'done'])
  const workflow = JSON.parse(frames[0].data)
  t.same(Object.keys(workflow).sort(), ['attention', 'closeTime', 'historyLength', 'runId', 'startTime', 'status', 'taskQueue', 'workflowId'])
  t.match(workflow, { workflowId: handle.workflowId, runId: handle.firstExecutionRunId, status: 'terminated', historyLength: 4, taskQueue: /^no-worker-/ })
  t.ok(frames[0].retry && frames[0].retry > 0, 'a retry: hint comes with the workflow event')
  t.equal(frames[0].id, undefined, 'workflow carries no id (the client keeps its cursor)')
  t.same(eventIds(frames), [1, 2, 3, 4], 'every event once, in order')
  const history = frames.filter((f) => f.event === 'history').flatMap((f) => JSON.parse(f.data))
  t.match(history[0], { eventId: '1', eventType: 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', eventTime: /Z$/ })
  t.same(payloadPaths(history), [], 'payloads removed by default')
  t.same(done(frames), { reason: 'WORKFLOW_EXECUTION_TERMINATED' })
  for (const f of frames.slice(1)) t.match(f.id, /^[A-Za-z0-9_-]+$/, `${f.event} has an opaque URL-safe id`)
})

t.test('the history frames equal the REST history of the run, live and with includePayloads', async (t) => {
  const client = await engineClient(t)
  // The app first: a run started before a slow build could be over before the stream opens.
  const { app, base } = await listen(t)
  const handle = await startExample(client, 'sleepy', { steps: 4, delayMs: 100 })
  const sse = await openSse(`${base}/workflow/${handle.workflowId}/history/stream?includePayloads=true`)
  await sse.ended
  const streamed = sse.frames.filter((f) => f.event === 'history').flatMap((f) => JSON.parse(f.data))
  const rest = (await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/history?pageSize=1000&includePayloads=true` })).json()
  t.same(streamed, rest.events, 'same events, same shape as GET …/history')
  t.same(streamed[0].workflowExecutionStartedEventAttributes.input, [{ steps: 4, delayMs: 100 }], 'payloads decoded')
  t.same(done(sse.frames), { reason: 'WORKFLOW_EXECUTION_COMPLETED' })
  t.ok(sse.frames.filter((f) => f.event === 'history').length > 1, 'a live run arrives in several batches')
})

t.test('done.reason for every way a run ends; newRunId only when a run is chained', async (t) => {
  const client = await engineClient(t)
  const { base } = await listen(t)
  const follow = async (workflowId: string, runId?: string) => {
    const sse = await openSse(`${base}/workflow/${workflowId}${runId ? `/runs/${runId}` : ''}/history/stream`)
    await sse.ended
    return sse.frames
  }

  const hello = await startExample(client, 'hello', { name: 'Ann' })
  t.same(done(await follow(hello.workflowId)), { reason: 'WORKFLOW_EXECUTION_COMPLETED' }, 'completed')

  const explode = await startExample(client, 'explode', { message: 'boom' })
  t.same(done(await follow(explode.workflowId)), { reason: 'WORKFLOW_EXECUTION_FAILED' }, 'failed')

  const approval = await startExample(client, 'approval', { label: 'stop me' })
  const canceled = follow(approval.workflowId)
  await approval.cancel()
  t.same(done(await canceled), { reason: 'WORKFLOW_EXECUTION_CANCELED' }, 'canceled (cleanup ran)')

  const doomed = await startIdle(client)
  const terminated = follow(doomed.workflowId)
  await doomed.terminate('bye')
  t.same(done(await terminated), { reason: 'WORKFLOW_EXECUTION_TERMINATED' }, 'terminated')

  const late = await startIdle(client, { workflowExecutionTimeout: '1s' })
  t.same(done(await follow(late.workflowId)), { reason: 'WORKFLOW_EXECUTION_TIMED_OUT' }, 'timed out')

  const relay = await startExample(client, 'relay', { hops: 1 })
  await relay.result()
  const latest = await client.workflow.getHandle(relay.workflowId).describe()
  t.same(done(await follow(relay.workflowId, relay.firstExecutionRunId)),
    { reason: 'WORKFLOW_EXECUTION_CONTINUED_AS_NEW', newRunId: latest.runId }, 'continued as new, naming the next run')
  t.same(done(await follow(relay.workflowId)), { reason: 'WORKFLOW_EXECUTION_COMPLETED' }, 'the last run of the chain')

  // A run that times out and is retried chains its retry.
  const retried = await startIdle(client, { workflowRunTimeout: '1s', retry: { maximumAttempts: 2, initialInterval: '1ms' } })
  const first = done(await follow(retried.workflowId, retried.firstExecutionRunId))
  t.equal(first.reason, 'WORKFLOW_EXECUTION_TIMED_OUT')
  t.match(first.newRunId, /^[0-9a-f-]{36}$/, 'timed out with a retry names the next run')
  await client.workflow.getHandle(retried.workflowId).terminate('cleanup').catch(() => {})
})

t.test('a client that refuses text/event-stream gets a JSON 406', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  await handle.terminate('x')
  const { base } = await listen(t)
  const res = await openSse(`${base}/workflow/${handle.workflowId}/history/stream`, { accept: 'application/json' })
  t.equal(res.statusCode, 406)
  const body = await res.body()
  t.match(JSON.parse(body), { error: 'NotAcceptableError', message: /text\/event-stream/ })
  assertContract(t, 'GET', ROUTE, { statusCode: res.statusCode, body })
  for (const accept of ['text/event-stream', '*/*', 'text/*', 'application/json, text/event-stream;q=0.5']) {
    const ok = await openSse(`${base}/workflow/${handle.workflowId}/history/stream`, { accept })
    t.equal(ok.statusCode, 200, `Accept: ${accept}`)
    await ok.ended
  }
  const refused = await openSse(`${base}/workflow/${handle.workflowId}/history/stream`, { accept: '*/*, text/event-stream;q=0' })
  t.equal(refused.statusCode, 406, 'an explicit q=0 refuses')
  await refused.body()
})

t.test('before the stream: 400 for a bad cursor, 404 for an unknown workflow or run, as JSON', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  await handle.terminate('x')
  const other = await startIdle(client)
  await other.terminate('x')
  const { base } = await listen(t)
  const { workflowId, firstExecutionRunId: runId } = handle
  const url = `${base}/workflow/${workflowId}/history/stream`
  const expect = async (res: Awaited<ReturnType<typeof openSse>>, status: number, error: string, route = ROUTE) => {
    const body = await res.body()
    t.equal(res.statusCode, status, `${status} ${error}`)
    t.match(res.headers['content-type'], /^application\/json/)
    t.match(JSON.parse(body), { error })
    assertContract(t, 'GET', route, { statusCode: res.statusCode, body })
    return JSON.parse(body)
  }

  const garbage = await expect(await openSse(url, { 'last-event-id': 'garbage' }), 400, 'ValidationError')
  t.match(garbage.issues, [{ path: '/last-event-id', in: 'headers' }])
  const numeric = await expect(await openSse(`${url}?lastEventId=7`), 400, 'ValidationError')
  t.match(numeric.issues, [{ path: '/lastEventId', in: 'querystring' }], 'a bare event number is not a cursor')
  await expect(await openSse(`${url}?lastEventId=${encodeURIComponent('a+b=')}`), 400, 'ValidationError')
  await expect(await openSse(url, { 'last-event-id': encodeCursor({ runId, eventId: 99, done: false }) }), 400, 'ValidationError')
  // The cursor names a run of another workflow: for this workflow no such run exists.
  await expect(await openSse(`${base}/workflow/${workflowId}/runs/${runId}/history/stream`, { 'last-event-id': encodeCursor({ runId: other.firstExecutionRunId, eventId: 1, done: false }) }),
    404, 'WorkflowNotFoundError', PINNED)
  await expect(await openSse(`${base}/workflow/${workflowId}/runs/not-a-uuid/history/stream`), 400, 'ValidationError', PINNED)
  await expect(await openSse(`${url}?includePayloads=perhaps`), 400, 'ValidationError')

  const missing = await expect(await openSse(`${base}/workflow/${uniqueId('missing')}/history/stream`), 404, 'WorkflowNotFoundError')
  t.match(missing.message, /not found/)
  await expect(await openSse(`${base}/workflow/${workflowId}/runs/${randomUUID()}/history/stream`), 404, 'WorkflowNotFoundError', PINNED)
  await expect(await openSse(url, { 'last-event-id': encodeCursor({ runId: randomUUID(), eventId: 1, done: false }) }), 404, 'WorkflowNotFoundError')
})

t.test('the token: required when set; ?access_token= takes a run token (EventSource cannot send headers), not the key', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  await handle.terminate('x')
  const { app, base } = await listen(t, { SERVICE_API_AUTH_TOKEN: 'stream-secret' })
  const url = `${base}/workflow/${handle.workflowId}/history/stream`

  const anonymous = await openSse(url)
  t.equal(anonymous.statusCode, 401)
  const body = await anonymous.body()
  t.match(JSON.parse(body), { error: 'UnauthorizedError' })
  assertContract(t, 'GET', ROUTE, { statusCode: 401, body })
  const wrong = await openSse(`${url}?access_token=nope`)
  t.equal(wrong.statusCode, 401)
  await wrong.body()
  const key = await openSse(`${url}?access_token=stream-secret`)
  t.equal(key.statusCode, 401, 'the key itself is refused in the query string')
  t.match(JSON.parse(await key.body()).message, /refused in the query string/)

  const issued = await app.inject({ method: 'POST', url: '/tokens', headers: { authorization: 'Bearer stream-secret' }, payload: { workflowId: handle.workflowId, scopes: ['read'], ttl: 60 } })
  const viaQuery = await openSse(`${url}?access_token=${issued.json().token}`)
  t.equal(viaQuery.statusCode, 200)
  await viaQuery.ended
  t.equal(viaQuery.frames.at(-1)?.event, 'done')
  const viaHeader = await openSse(url, { authorization: 'Bearer stream-secret' })
  t.equal(viaHeader.statusCode, 200)
  await viaHeader.ended
  t.equal(viaHeader.frames.at(-1)?.event, 'done')
})
