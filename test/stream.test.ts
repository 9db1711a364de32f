import t from 'tap'
import { build } from './helpers/app.js'
import { engineClient, eventIds, hasDone, openSse, startExample, startIdle } from './helpers/history.js'

async function listen (t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  const app = await build(t, env)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base }
}

t.test('a finished run streams workflow, its whole history, done, then closes', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  await handle.signal('poke', { n: 1 })
  await handle.terminate('enough')
  const { base } = await listen(t)

  const sse = await openSse(`${base}/workflow/${handle.workflowId}/history/stream`)
  t.equal(sse.statusCode, 200)
  t.match(sse.headers['content-type'], /^text\/event-stream/)
  await sse.ended
  const { frames } = sse
  t.same(frames.map((f) => f.event).at(0), 'workflow')
  t.same(frames.map((f) => f.event).at(-1), 'done')
  const workflow = JSON.parse(frames[0].data)
  t.match(workflow, { workflowId: handle.workflowId, runId: handle.firstExecutionRunId, status: 'terminated', historyLength: 4, taskQueue: /^no-worker-/ })
  t.ok(frames[0].retry && frames[0].retry > 0, 'a retry: hint comes with the workflow event')
  t.equal(frames[0].id, undefined, 'workflow carries no id (the client keeps its cursor)')
  t.same(eventIds(frames), [1, 2, 3, 4], 'every event once, in order')
  const done = frames.at(-1)!
  t.same(JSON.parse(done.data), { reason: 'WORKFLOW_EXECUTION_TERMINATED' })
  t.ok(done.id, 'done has an id')
  for (const f of frames.filter((f) => f.event === 'history')) t.ok(f.id, 'history frames have ids')
})

t.test('many clients of one running run share one upstream long-poll', async (t) => {
  const client = await engineClient(t)
  const handle = await startExample(client, 'approval', { label: 'shared' })
  const { app, base } = await listen(t)
  const hubs = app.historyHubs
  const before = { ...hubs.metrics }
  const clients = await Promise.all(Array.from({ length: 20 }, () => openSse(`${base}/workflow/${handle.workflowId}/history/stream`)))
  await Promise.all(clients.map((c) => c.until((f) => eventIds(f).length >= 3)))
  t.equal(hubs.size, 1, 'one hub for the run')
  t.equal(hubs.subscribers, 20)
  await handle.signal('approve', { by: 'ann' })
  await Promise.all(clients.map((c) => c.ended))
  const reference = eventIds(clients[0].frames)
  for (const c of clients) {
    t.same(eventIds(c.frames), reference, 'same events for every client')
    t.same(JSON.parse(c.frames.at(-1)!.data), { reason: 'WORKFLOW_EXECUTION_COMPLETED' })
  }
  t.same(reference, Array.from({ length: reference.length }, (_, i) => i + 1), 'contiguous from 1')
  const polls = hubs.metrics.longPolls - before.longPolls
  t.equal(hubs.metrics.replayCalls - before.replayCalls, 0, 'no client replayed on its own')
  const batches = clients[0].frames.filter((f) => f.event === 'history').length
  t.ok(polls <= batches + 1, `upstream long-polls (${polls}) follow the batches (${batches}), not the 20 clients`)
  await hubs.whenIdle()
  t.equal(hubs.metrics.inFlight, 0)
})

t.test('done: hasDone helper sanity', async (t) => {
  t.ok(hasDone([{ event: 'done', data: '{}' }]))
})
