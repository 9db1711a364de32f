import t from 'tap'
import { randomUUID } from 'node:crypto'
import { defaultPayloadConverter } from '@temporalio/common'
import protoRoot from '@temporalio/proto'
import { build } from './helpers/app.js'
import { assertContract } from './helpers/contract.js'
import { engineClient, payloadPaths, protobufLeaks, startExample, startIdle, uniqueId } from './helpers/history.js'
import { encodePageToken } from '../lib/page-token.js'

type Event = Record<string, any> & { eventId: string, eventType: string, eventTime: string }
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/
const toPayload = (v: unknown) => defaultPayloadConverter.toPayload(v)

function attributes (event: Event): Record<string, any> {
  const key = Object.keys(event).find((k) => k.endsWith('EventAttributes'))
  return key ? event[key] : {}
}

t.test('events are the canonical JSON form: string ids, RFC 3339 times, EVENT_TYPE names, no protobuf internals', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client, { memo: { note: { deep: true } } })
  await handle.signal('poke', { n: 1 })
  await handle.terminate('enough')
  const app = await build(t)

  const res = await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/history` })
  t.equal(res.statusCode, 200)
  assertContract(t, 'GET', '/workflow/{id}/history', res)
  const body = res.json()
  t.match(body.workflow, { workflowId: handle.workflowId, runId: handle.firstExecutionRunId, status: 'terminated', historyLength: 4 })
  t.equal(body.nextPageToken, null, 'one page holds it all')
  const events: Event[] = body.events
  t.same(events.map((e) => e.eventId), ['1', '2', '3', '4'], 'ordered, ids as strings')
  t.same(events.map((e) => e.eventType), [
    'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED', 'EVENT_TYPE_WORKFLOW_TASK_SCHEDULED',
    'EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED', 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED'
  ])
  for (const e of events) t.match(e.eventTime, RFC3339, `event ${e.eventId} time is RFC 3339`)
  t.same(protobufLeaks(events), [], 'no Long or byte objects anywhere')
  t.same(payloadPaths(events), [], 'every payload removed without includePayloads')
  const started = attributes(events[0])
  t.equal(started.workflowType.name, 'nobody-runs-this')
  t.equal(started.taskQueue.kind, 'TASK_QUEUE_KIND_NORMAL', 'nested enums are named')
  t.equal(started.workflowTaskTimeout, '10s', 'durations in the protobuf JSON form')
  t.notOk('input' in started, 'input removed')
  t.equal(attributes(events[3]).reason, 'enough')
})

t.test('includePayloads decodes every payload, wherever it is nested', async (t) => {
  const client = await engineClient(t)
  const workflowId = uniqueId('payloads')
  const taskQueue = uniqueId('no-worker')
  // A search attribute of our own (the dev server defines no custom one); registering is idempotent.
  await client.connection.operatorService.addSearchAttributes({
    namespace: 'default', searchAttributes: { FlowportTestKeyword: protoRoot.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD }
  }).catch((err: { code?: number }) => { if (err.code !== 6) throw err })
  // The raw RPC lets the test put payloads in a header and the termination details too.
  const { runId } = await client.workflowService.startWorkflowExecution({
    namespace: 'default',
    workflowId,
    workflowType: { name: 'nobody-runs-this' },
    taskQueue: { name: taskQueue },
    input: { payloads: [toPayload({ a: 1 }), toPayload('x'), toPayload(null), toPayload(new Uint8Array([1, 2, 3]))] },
    header: { fields: { tracing: toPayload({ span: 'abc' }) } },
    memo: { fields: { note: toPayload({ deep: true }) } },
    searchAttributes: { indexedFields: { FlowportTestKeyword: toPayload('kw') } },
    requestId: randomUUID()
  })
  const handle = client.workflow.getHandle(workflowId, runId!)
  await handle.signal('poke', { n: 1 })
  await client.workflowService.terminateWorkflowExecution({
    namespace: 'default', workflowExecution: { workflowId, runId }, reason: 'done', details: { payloads: [toPayload({ why: 'test' })] }
  })
  const app = await build(t)

  const res = await app.inject({ method: 'GET', url: `/workflow/${workflowId}/runs/${runId}/history?includePayloads=true` })
  t.equal(res.statusCode, 200)
  assertContract(t, 'GET', '/workflow/{id}/runs/{rid}/history', res)
  const events: Event[] = res.json().events
  const started = attributes(events[0])
  t.same(started.input.slice(0, 3), [{ a: 1 }, 'x', null], 'input args decoded to JSON values')
  t.same(Object.keys(started.input[3]).sort(), ['data', 'metadata'], 'a binary payload keeps its canonical form')
  t.same(started.header, { fields: { tracing: { span: 'abc' } } }, 'header payloads decoded')
  t.same(started.memo, { fields: { note: { deep: true } } }, 'memo decoded')
  t.same(started.searchAttributes, { indexedFields: { FlowportTestKeyword: 'kw' } }, 'search attributes decoded')
  t.same(attributes(events[2]).input, [{ n: 1 }], 'signal input decoded')
  t.same(attributes(events[3]).details, [{ why: 'test' }], 'termination details decoded')
  t.same(payloadPaths(events), ['/0/workflowExecutionStartedEventAttributes/input/3'], 'nothing else keeps the payload form')
  t.same(protobufLeaks(events), [])

  const stripped: Event[] = (await app.inject({ method: 'GET', url: `/workflow/${workflowId}/runs/${runId}/history` })).json().events
  t.same(payloadPaths(stripped), [], 'without includePayloads none is left')
  t.notOk('input' in attributes(stripped[2]), 'signal input removed')
  t.notOk('details' in attributes(stripped[3]), 'termination details removed')
})

t.test('update arguments and results, step inputs and failures decode too', async (t) => {
  const client = await engineClient(t)
  const approval = await startExample(client, 'approval', { label: 'before' })
  t.same(await approval.executeUpdate('relabel', { args: [{ label: 'after' }] }), { previous: 'before' })
  await approval.signal('approve', { by: 'ann' })
  await approval.result()
  const failing = await startExample(client, 'explode', { message: 'boom' })
  await t.rejects(failing.result())
  const app = await build(t)

  const events: Event[] = (await app.inject({ method: 'GET', url: `/workflow/${approval.workflowId}/history?includePayloads=true` })).json().events
  const accepted = events.find((e) => e.eventType === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED')
  t.same(accepted && attributes(accepted).acceptedRequest.input.args, [{ label: 'after' }], 'update arguments decoded')
  const completed = events.find((e) => e.eventType === 'EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED')
  t.same(completed && attributes(completed).outcome.success, [{ previous: 'before' }], 'update result decoded')
  t.same(payloadPaths(events), [])

  const failed: Event[] = (await app.inject({ method: 'GET', url: `/workflow/${failing.workflowId}/history?includePayloads=true` })).json().events
  t.same(payloadPaths(failed), [], 'failure payloads decoded')
  const last = failed.at(-1)!
  t.equal(last.eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_FAILED')
  t.match(JSON.stringify(attributes(last).failure), /boom/, 'the failure keeps its message')
  const scheduled = failed.find((e) => e.eventType === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED')
  t.same(scheduled && attributes(scheduled).input, [{ message: 'boom' }], 'step input decoded')
})

t.test('pages: a small pageSize walks the same events as one page, tokens are URL-safe, null at the end', async (t) => {
  const client = await engineClient(t)
  const handle = await startExample(client, 'sleepy', { steps: 3, delayMs: 0 })
  await handle.result()
  const app = await build(t)
  const all: Event[] = (await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/history?pageSize=1000` })).json().events
  t.ok(all.length > 10, `a history of ${all.length} events`)

  const walked: Event[] = []
  let token: string | null = null
  let pages = 0
  do {
    const res: { statusCode: number, body: string, json: () => any } = await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/history?pageSize=3${token ? `&pageToken=${token}` : ''}` })
    t.equal(res.statusCode, 200)
    const body: { events: Event[], nextPageToken: string | null } = res.json()
    if (pages === 0) assertContract(t, 'GET', '/workflow/{id}/history', res)
    walked.push(...body.events)
    token = body.nextPageToken
    if (token) t.match(token, /^[A-Za-z0-9_-]+$/, 'token is base64url')
    pages++
  } while (token && pages < 100)
  t.ok(pages > 2, `${pages} pages`)
  t.same(walked, all, 'pages concatenate to the whole history')
})

t.test('every pageSize from 1 to 7: pages hold at most pageSize events, concatenate to the whole history, and end with a null token', async (t) => {
  const client = await engineClient(t)
  // Timers and steps make the engine keep several events per batch, so its own pages overshoot small sizes.
  const handle = await startExample(client, 'sleepy', { steps: 3, delayMs: 1 })
  await handle.result()
  const app = await build(t)
  const url = `/workflow/${handle.workflowId}/history`
  const all: Event[] = (await app.inject({ method: 'GET', url: `${url}?pageSize=1000` })).json().events
  t.equal(Number(all.at(-1)?.eventId), all.length, 'the unpaged history is whole')

  for (let pageSize = 1; pageSize <= 7; pageSize++) {
    const walked: Event[] = []
    const sizes: number[] = []
    let token: string | null = null
    do {
      const res: { statusCode: number, json: () => any } = await app.inject({ method: 'GET', url: `${url}?pageSize=${pageSize}${token ? `&pageToken=${token}` : ''}` })
      t.equal(res.statusCode, 200)
      const body: { events: Event[], nextPageToken: string | null } = res.json()
      sizes.push(body.events.length)
      walked.push(...body.events)
      token = body.nextPageToken
    } while (token && sizes.length <= all.length)
    t.ok(sizes.every((n) => n <= pageSize), `pageSize ${pageSize}: no page larger (${sizes.join(', ')})`)
    t.ok(sizes.every((n) => n > 0), `pageSize ${pageSize}: no empty page`)
    t.equal(token, null, `pageSize ${pageSize}: the last page has no token`)
    t.same(walked, all, `pageSize ${pageSize}: the pages concatenate to the whole history`)
  }
})

t.test('the latest-run form resolves the current run; the pinned form reads that run only', async (t) => {
  const client = await engineClient(t)
  const handle = await startExample(client, 'relay', { hops: 2 })
  await handle.result()
  const app = await build(t)
  const first = handle.firstExecutionRunId

  const latest = (await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/history` })).json()
  t.not(latest.workflow.runId, first, 'the current run is a later one')
  t.equal(latest.workflow.status, 'completed')
  t.equal(latest.events.at(-1).eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED')

  const pinned = (await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/runs/${first}/history` })).json()
  t.equal(pinned.workflow.runId, first)
  t.equal(pinned.workflow.status, 'continued_as_new')
  const end = pinned.events.at(-1)
  t.equal(end.eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW')
  t.match(attributes(end).newExecutionRunId, /^[0-9a-f-]{36}$/)
})

t.test('a page token keeps paging its run even after a new run became current', async (t) => {
  const client = await engineClient(t)
  const approval = await startExample(client, 'approval', { label: 'paging' })
  const app = await build(t)
  const firstPage = (await app.inject({ method: 'GET', url: `/workflow/${approval.workflowId}/history?pageSize=1` })).json()
  t.ok(firstPage.nextPageToken, 'more to come')
  // A new run takes over the workflow id.
  await approval.terminate('replaced')
  await client.workflow.start('approval', { taskQueue: firstPage.workflow.taskQueue, workflowId: approval.workflowId, args: [{ label: 'next' }] })
  const next = (await app.inject({ method: 'GET', url: `/workflow/${approval.workflowId}/history?pageSize=1000&pageToken=${firstPage.nextPageToken}` })).json()
  t.equal(next.workflow.runId, firstPage.workflow.runId, 'still the first run')
  t.equal(next.events[0].eventId, String(Number(firstPage.events.at(-1).eventId) + 1), 'continues where the page ended')
  t.equal(next.events.at(-1).eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED')
  await client.workflow.getHandle(approval.workflowId).terminate('cleanup')
})

t.test('400 and 404 are JSON', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  await handle.terminate('x')
  const other = await startIdle(client)
  await other.terminate('x')
  const app = await build(t)
  const url = `/workflow/${handle.workflowId}/history`

  for (const bad of ['not-a-token', 'abc+def=', encodePageToken(handle.workflowId, { state: 'not-a-uuid:1', engineToken: Buffer.from('x') })]) {
    const res = await app.inject({ method: 'GET', url: `${url}?pageToken=${encodeURIComponent(bad)}` })
    t.equal(res.statusCode, 400, `pageToken ${bad}`)
    t.match(res.json(), { error: 'ValidationError', message: 'Invalid Payload', issues: [{ path: '/pageToken', in: 'querystring' }] })
    assertContract(t, 'GET', '/workflow/{id}/history', res)
  }
  const forged = encodePageToken(handle.workflowId, { state: `${handle.firstExecutionRunId}:1`, engineToken: Buffer.from('forged by a client') })
  const rejected = await app.inject({ method: 'GET', url: `${url}?pageToken=${forged}` })
  t.equal(rejected.statusCode, 400, 'a token the engine rejects is the client\'s error')
  t.match(rejected.json(), { error: 'ValidationError', issues: [{ path: '/pageToken' }] })

  const othersToken = encodePageToken(handle.workflowId, { state: `${other.firstExecutionRunId}:1`, engineToken: Buffer.from('x') })
  const mismatch = await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/runs/${handle.firstExecutionRunId}/history?pageToken=${othersToken}` })
  t.equal(mismatch.statusCode, 400, 'a pinned route refuses another run\'s token')

  for (const q of ['pageSize=0', 'pageSize=1001', 'includePayloads=maybe', 'unknown=1']) {
    const res = await app.inject({ method: 'GET', url: `${url}?${q}` })
    t.equal(res.statusCode, 400, q)
    t.equal(res.json().error, 'ValidationError')
  }

  const missing = await app.inject({ method: 'GET', url: `/workflow/${uniqueId('missing')}/history` })
  t.equal(missing.statusCode, 404)
  t.match(missing.json(), { error: 'WorkflowNotFoundError' })
  assertContract(t, 'GET', '/workflow/{id}/history', missing)
  const missingRun = await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/runs/${randomUUID()}/history` })
  t.equal(missingRun.statusCode, 404)
  t.match(missingRun.json(), { error: 'WorkflowNotFoundError', workflowId: handle.workflowId })
  const badRun = await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/runs/not-a-uuid/history` })
  t.equal(badRun.statusCode, 400)
})

t.test('the internal catalog workflows have no history here, as they have no status (they were readable before)', async (t) => {
  const app = await build(t)
  const { CATALOG_WORKFLOW_TYPE, catalogWorkflowId } = await import('@flowport/core/contract')
  const id = catalogWorkflowId(process.env.FLOWPORT_TEST_CATALOG!)
  const described = await app.engine.client.workflow.getHandle(id).describe()
  t.equal(described.type, CATALOG_WORKFLOW_TYPE, 'the catalog workflow exists')
  for (const url of [`/workflow/${id}/history`, `/workflow/${id}/runs/${described.runId}/history`, `/workflow/${id}/history/stream`]) {
    const res = await app.inject({ method: 'GET', url, headers: { accept: 'text/event-stream' } })
    t.equal(res.statusCode, 404, url)
    t.match(res.json(), { error: 'WorkflowNotFoundError' })
  }
})
