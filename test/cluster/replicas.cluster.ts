/**
 * The API is stateless: a run started through one replica is read, signalled, stopped and
 * streamed through the other, and a stream client that loses its replica resumes on the other.
 */
import t from 'tap'
import { eventIds, hasDone, openSse, type Frame } from '../helpers/history.js'
import { apiUrl, auth, kill, ready, replaced, request } from './helpers.js'

const A = apiUrl('api-a')
const B = apiUrl('api-b')

async function settled (base: string, workflowId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 240; i++) {
    const res = await request(base, 'GET', `/workflow/${workflowId}/result`)
    if (res.status === 200) return res.body
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`${workflowId} did not close`)
}

t.before(async () => {
  t.ok(await ready('api-a') && await ready('api-b'), 'both replicas are ready')
})

t.test('a run started through replica A is read, queried, signalled and finished through replica B', async (t) => {
  const started = await request(A, 'POST', '/workflow/start', { workflowName: 'approval', input: { label: 'cross' } })
  t.equal(started.status, 200, 'started through A')
  const { workflowId, runId } = started.body

  const status = await request(B, 'GET', `/workflow/${workflowId}/status`)
  t.equal(status.status, 200, 'B knows the run')
  t.match(status.body, { workflowId, runId, status: 'running' })
  const input = await request(B, 'GET', `/workflow/${workflowId}/input`)
  t.match(input.body, { input: { label: 'cross' } }, 'B reads its input')
  const query = await request(B, 'POST', `/workflow/${workflowId}/query/state`, {})
  t.equal(query.status, 200)
  t.match(query.body, { result: { label: 'cross', approved: false } }, 'B queries it')
  const update = await request(B, 'POST', `/workflow/${workflowId}/update/relabel`, { payload: { label: 'renamed' } })
  t.equal(update.status, 200)
  t.match(update.body, { result: { previous: 'cross' } }, 'B updates it')
  t.equal((await request(B, 'POST', `/workflow/${workflowId}/signal/approve`, { payload: { by: 'replica-b' } })).status, 200, 'B signals it')

  t.match(await settled(B, workflowId), { workflowId, runId, status: 'completed', output: { label: 'renamed', approvedBy: 'replica-b' } }, 'completed by the signal B sent')
  t.match(await settled(A, workflowId), { status: 'completed', output: { approvedBy: 'replica-b' } }, 'A reads the same result')
})

t.test('a run started through replica A is stopped through replica B', async (t) => {
  const started = await request(A, 'POST', '/workflow/start', { workflowName: 'approval', input: { label: 'to stop' } })
  t.equal(started.status, 200)
  const { workflowId, runId } = started.body
  const stopped = await request(B, 'PATCH', `/workflow/${workflowId}/stop`)
  t.equal(stopped.status, 200, 'B stops it')
  t.match(stopped.body, { workflowId, runId })
  t.match(await settled(A, workflowId), { workflowId, runId, status: 'canceled' }, 'A sees it canceled')
})

t.test('a run started through A is streamed through B, every event once', async (t) => {
  const started = await request(A, 'POST', '/workflow/start', { workflowName: 'sleepy', input: { steps: 3, delayMs: 200 } })
  t.equal(started.status, 200)
  const sse = await openSse(`${B}/workflow/${started.body.workflowId}/history/stream`, auth())
  t.equal(sse.statusCode, 200)
  await sse.ended
  t.ok(hasDone(sse.frames), 'the stream ends with done')
  const ids = eventIds(sse.frames)
  t.same(ids, Array.from({ length: ids.length }, (_, i) => i + 1), 'every event exactly once')
  const history = await request(A, 'GET', `/workflow/${started.body.workflowId}/history?pageSize=1000`)
  t.equal(ids.length, history.body.events.length, 'the whole history, as A reads it')
})

t.test('a stream client that loses replica A resumes on replica B with Last-Event-ID, every event exactly once', async (t) => {
  const started = await request(A, 'POST', '/workflow/start', { workflowName: 'sleepy', input: { steps: 6, delayMs: 700 } })
  t.equal(started.status, 200)
  const { workflowId } = started.body
  const onA = await openSse(`${A}/workflow/${workflowId}/history/stream`, auth())
  t.equal(onA.statusCode, 200)
  // Live on A: the run has made progress but is not done.
  const seen = await onA.until((frames) => eventIds(frames).length >= 8)
  t.notOk(hasDone(seen), 'the run is still going when A dies')

  const oldPid = kill('api-a')
  await onA.ended
  const received: Frame[] = onA.frames.slice(1)
  const cursor = received.filter((f) => f.id).at(-1)?.id
  t.ok(cursor, 'the last frame from A carried an id')

  const onB = await openSse(`${B}/workflow/${workflowId}/history/stream`, { ...auth(), 'last-event-id': cursor! })
  t.equal(onB.statusCode, 200, 'B takes the cursor A issued')
  await onB.ended
  t.equal(onB.frames[0].event, 'workflow', 'workflow first, as on every connect')
  received.push(...onB.frames.slice(1))
  const ids = eventIds(received)
  t.same(ids, Array.from({ length: ids.length }, (_, i) => i + 1), 'every event exactly once across both replicas, no gap, no duplicate')
  t.ok(hasDone(received), 'done came from B')
  const history = await request(B, 'GET', `/workflow/${workflowId}/history?pageSize=1000`)
  t.equal(ids.length, history.body.events.length, 'the whole history')

  t.ok(await replaced('api-a', oldPid), 'the cluster started replica A again')
})
