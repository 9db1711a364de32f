import t from 'tap'
import type { Test } from 'tap'
import { build } from './helpers/app.js'
import { assertContract } from './helpers/contract.js'
import { engineClient, eventIds, hasDone, openSse, startExample, startIdle, type Frame } from './helpers/history.js'
import { decodeCursor, encodeCursor } from '../plugins/app/history/cursor.js'

async function listen (t: Test) {
  const app = await build(t)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base }
}

const lastId = (frames: Frame[]) => frames.filter((f) => f.id).at(-1)?.id

t.test('reconnecting at several points of a live run replays exactly the unseen events', async (t) => {
  const client = await engineClient(t)
  const handle = await startExample(client, 'sleepy', { steps: 6, delayMs: 1000 })
  const { app, base } = await listen(t)
  const url = `${base}/workflow/${handle.workflowId}/history/stream`

  const received: Frame[] = []
  let cursor: string | undefined
  let connections = 0
  // Drop the connection after each history frame until the run is done.
  while (!hasDone(received) && connections < 50) {
    const sse = await openSse(url, cursor ? { 'last-event-id': cursor } : {})
    t.equal(sse.statusCode, 200)
    connections++
    const frames = await sse.until((f) => hasDone(f) || f.filter((x) => x.event === 'history').length >= 1)
    sse.close()
    t.equal(frames[0].event, 'workflow', 'workflow first on every connect')
    received.push(...frames.slice(1))
    cursor = lastId(received)
  }
  const ids = eventIds(received)
  t.ok(connections > 3, `${connections} connections`)
  t.same(ids, Array.from({ length: ids.length }, (_, i) => i + 1), 'every event exactly once, no gap, no duplicate')
  const rest = (await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/history?pageSize=1000` })).json()
  t.equal(ids.length, rest.events.length, 'the whole history')
  t.same(JSON.parse(received.at(-1)!.data), { reason: 'WORKFLOW_EXECUTION_COMPLETED' })

  const after = await openSse(url, { 'last-event-id': received.at(-1)!.id! })
  t.equal(after.statusCode, 204, 'a reconnect after done gets 204, which stops an EventSource')
  assertContract(t, 'GET', '/workflow/{id}/history/stream', { statusCode: 204, body: await after.body() })
})

t.test('cursors at the edges of a finished run', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  await handle.signal('poke', 1)
  await handle.signal('poke', 2)
  await handle.terminate('x')
  const { base } = await listen(t)
  const url = `${base}/workflow/${handle.workflowId}/history/stream`
  const full = await openSse(url)
  await full.ended
  const history = full.frames.filter((f) => f.event === 'history')
  const terminalCursor = history.at(-1)!.id!
  t.same(decodeCursor(terminalCursor), { runId: handle.firstExecutionRunId, eventId: 5, done: false }, 'the id names run and last event')

  const missedDone = await openSse(url, { 'last-event-id': terminalCursor })
  await missedDone.ended
  t.same(missedDone.frames.map((f) => f.event), ['workflow', 'done'], 'saw every event but not done: only done follows')
  t.equal(missedDone.frames[1].id, full.frames.at(-1)!.id, 'the same done id')

  const fromThree = await openSse(url, { 'last-event-id': encodeCursor({ runId: handle.firstExecutionRunId, eventId: 3, done: false }) })
  await fromThree.ended
  t.same(eventIds(fromThree.frames), [4, 5])

  // The header wins over a stale ?lastEventId= (what an EventSource resuming such a URL sends).
  const stale = encodeCursor({ runId: handle.firstExecutionRunId, eventId: 1, done: false })
  const fresh = encodeCursor({ runId: handle.firstExecutionRunId, eventId: 4, done: false })
  const both = await openSse(`${url}?lastEventId=${stale}`, { 'last-event-id': fresh })
  await both.ended
  t.same(eventIds(both.frames), [5], 'Last-Event-ID header over the query')
  const queryOnly = await openSse(`${url}?lastEventId=${stale}`)
  await queryOnly.ended
  t.same(eventIds(queryOnly.frames), [2, 3, 4, 5], 'the query alone works too')
})

t.test('the unpinned route resumes the run named in the cursor after a new run took over', async (t) => {
  const client = await engineClient(t)
  const first = await startIdle(client)
  const { base } = await listen(t)
  const url = `${base}/workflow/${first.workflowId}/history/stream`

  const before = await openSse(url)
  const seen = await before.until((f) => eventIds(f).length >= 2)
  before.close()
  const cursor = lastId(seen)!
  t.equal(decodeCursor(cursor)?.runId, first.firstExecutionRunId)

  // While the client is away the run gets a signal, ends, and a new run starts under the same id.
  await first.signal('poke', { missed: true })
  await first.terminate('replaced')
  const second = await client.workflow.start('nobody-runs-this', { taskQueue: 'nobody', workflowId: first.workflowId, args: [] })
  t.not(second.firstExecutionRunId, first.firstExecutionRunId)

  const resumed = await openSse(url, { 'last-event-id': cursor })
  await resumed.ended
  t.equal(JSON.parse(resumed.frames[0].data).runId, first.firstExecutionRunId, 'the cursor\'s run, not the current one')
  t.same(eventIds(resumed.frames), [3, 4], 'exactly the events of that run the client missed')
  t.same(JSON.parse(resumed.frames.at(-1)!.data), { reason: 'WORKFLOW_EXECUTION_TERMINATED' }, 'then done')

  const fresh = await openSse(url)
  const current = await fresh.until((f) => f.length >= 1)
  fresh.close()
  t.equal(JSON.parse(current[0].data).runId, second.firstExecutionRunId, 'without a cursor: the current run')
  await second.terminate('cleanup')
})

t.test('pinned and unpinned across continue-as-new', async (t) => {
  const client = await engineClient(t)
  const handle = await startExample(client, 'relay', { hops: 2 })
  await handle.result()
  const { base } = await listen(t)
  const r1 = handle.firstExecutionRunId

  const pinned = await openSse(`${base}/workflow/${handle.workflowId}/runs/${r1}/history/stream`)
  await pinned.ended
  const firstDone = JSON.parse(pinned.frames.at(-1)!.data)
  t.equal(firstDone.reason, 'WORKFLOW_EXECUTION_CONTINUED_AS_NEW')
  const r2 = firstDone.newRunId

  // A client of the unpinned route that was on run 1 resumes run 1 and learns of run 2 from done.
  const resumeAt = encodeCursor({ runId: r1, eventId: 1, done: false })
  const unpinned = await openSse(`${base}/workflow/${handle.workflowId}/history/stream`, { 'last-event-id': resumeAt })
  await unpinned.ended
  t.equal(JSON.parse(unpinned.frames[0].data).runId, r1)
  t.same(eventIds(unpinned.frames), eventIds(pinned.frames).slice(1), 'run 1 from event 2')
  t.same(JSON.parse(unpinned.frames.at(-1)!.data), { reason: 'WORKFLOW_EXECUTION_CONTINUED_AS_NEW', newRunId: r2 })

  const next = await openSse(`${base}/workflow/${handle.workflowId}/runs/${r2}/history/stream`)
  await next.ended
  const secondDone = JSON.parse(next.frames.at(-1)!.data)
  t.equal(secondDone.reason, 'WORKFLOW_EXECUTION_CONTINUED_AS_NEW')
  t.not(secondDone.newRunId, r2)

  const latest = await openSse(`${base}/workflow/${handle.workflowId}/history/stream`)
  await latest.ended
  t.equal(JSON.parse(latest.frames[0].data).runId, secondDone.newRunId, 'no cursor: the current (last) run')
  t.same(JSON.parse(latest.frames.at(-1)!.data), { reason: 'WORKFLOW_EXECUTION_COMPLETED' }, 'the end of the chain has no newRunId')

  const crossed = await openSse(`${base}/workflow/${handle.workflowId}/runs/${r2}/history/stream`, { 'last-event-id': resumeAt })
  t.equal(crossed.statusCode, 400, 'a pinned route refuses a cursor of another run')
  await crossed.body()
})
