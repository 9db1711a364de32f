import t from 'tap'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { Client, Connection } from '@temporalio/client'
import { build } from './helpers/app.js'
import { engineClient, eventIds, openSse, startExample, startIdle, type SseConnection } from './helpers/history.js'
import type { EventChunk } from '../plugins/app/history/event-chunk.js'
import { HistoryHubs } from '../plugins/app/history/hubs.js'
import type { HubEnd, Subscription, SubscriptionSink } from '../plugins/app/history/subscription.js'
import { startEngine } from '../cli/engine.js'
import { until } from './helpers/processes.js'

async function listen (t: Test, env: Record<string, string> = {}) {
  const app = await build(t, env)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base }
}

t.test('many clients of one run share one upstream long-poll; the last to leave releases it', async (t) => {
  const client = await engineClient(t)
  const handle = await startExample(client, 'approval', { label: 'shared' })
  const { app, base } = await listen(t)
  const hubs = app.history.hubs
  const before = { ...hubs.metrics }
  const url = `${base}/workflow/${handle.workflowId}/history/stream`
  const clients = await Promise.all(Array.from({ length: 30 }, async () => await openSse(url)))
  await Promise.all(clients.map(async (c) => await c.until((f) => eventIds(f).length >= 3)))
  t.equal(hubs.size, 1, 'one hub for the run')
  t.equal(hubs.subscribers, 30)
  t.equal(hubs.metrics.inFlight, 1, 'one engine call open for 30 clients')

  // One client leaves: the others keep the shared poll.
  clients[0].close()
  await clients[0].ended
  await app.inject({ method: 'GET', url: '/health' }) // let the server see the close
  const latecomer = await openSse(url)
  await latecomer.until((f) => eventIds(f).length >= 3)
  t.equal(hubs.size, 1)
  t.equal(hubs.metrics.inFlight, 1, 'still one engine call')

  await handle.signal('approve', { by: 'ann' })
  const staying = [...clients.slice(1), latecomer]
  await Promise.all(staying.map(async (c) => await c.ended))
  const reference = eventIds(staying[0].frames)
  t.same(reference, Array.from({ length: reference.length }, (_, i) => i + 1), 'contiguous from 1')
  for (const c of staying) {
    t.same(eventIds(c.frames), reference, 'every client got every event once')
    t.same(JSON.parse(c.frames.at(-1)!.data), { reason: 'WORKFLOW_EXECUTION_COMPLETED' })
  }
  const polls = hubs.metrics.longPolls - before.longPolls
  const batches = staying[0].frames.filter((f) => f.event === 'history').length
  t.equal(hubs.metrics.replayCalls - before.replayCalls, 0, 'no client read the engine on its own')
  t.ok(polls <= batches + 1, `upstream long-polls (${polls}) follow the batches (${batches}), not the 31 clients`)
  await hubs.whenIdle()
  t.equal(hubs.size, 0, 'hub gone after done')
})

t.test('a client that disconnects releases the engine call it caused', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  const { app, base } = await listen(t)
  const hubs = app.history.hubs
  const streams = await Promise.all([1, 2, 3].map(async () => await openSse(`${base}/workflow/${handle.workflowId}/history/stream`)))
  await Promise.all(streams.map(async (s) => await s.until((f) => eventIds(f).length >= 2)))
  // Between two batches the hub has no call open for a moment; the idle run then leaves one waiting.
  t.ok(await until(() => hubs.metrics.inFlight === 1, 400, 25), 'a long-poll is waiting on the engine')
  t.equal(hubs.subscribers, 3)
  for (const s of streams) s.close()
  await hubs.whenIdle()
  t.equal(hubs.size, 0, 'no hub left')
  t.equal(hubs.metrics.inFlight, 0, 'the engine call was aborted')
  t.equal(app.openStreams.size, 0, 'no stream left open')
  await handle.terminate('cleanup')
})

t.test('shutdown ends open streams: close() resolves and every client sees the end', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  const { app, base } = await listen(t)
  const streams = await Promise.all([1, 2, 3].map(async () => await openSse(`${base}/workflow/${handle.workflowId}/history/stream`)))
  await Promise.all(streams.map(async (s) => await s.until((f) => eventIds(f).length >= 2)))
  t.equal(app.openStreams.size, 3)
  await app.close()
  await Promise.all(streams.map(async (s) => await s.ended))
  for (const s of streams) t.notOk(s.frames.some((f) => f.event === 'done'), 'no done: the run goes on, a reconnect resumes it')
  t.equal(app.openStreams.size, 0)
  t.equal(app.history.hubs.metrics.inFlight, 0, 'no engine call left behind')
  await handle.terminate('cleanup')
})

/** A sink that records what its subscription hands it, as the stream route writes it; a `full` one refuses more until resumed. */
class Collector implements SubscriptionSink {
  readonly ids: number[] = []
  last: HubEnd | undefined
  full = false
  subscription!: Subscription
  #notify = () => {}

  static follow (hubs: HistoryHubs, workflowId: string, runId: string, position: number): Collector {
    const collector = new Collector()
    collector.subscription = hubs.subscribe(workflowId, runId, position, collector)
    return collector
  }

  events (batch: EventChunk, after: number): boolean {
    this.ids.push(...batch.events.map((e) => Number(e.eventId)).filter((id) => id > after))
    this.#notify()
    return !this.full
  }

  end (item: HubEnd): void {
    this.last = item
    this.#notify()
  }

  async until (ready: () => boolean): Promise<void> {
    while (!ready()) await new Promise<void>((resolve) => { this.#notify = resolve })
  }

  get ended (): Promise<void> { return this.until(() => this.last !== undefined) }
}

t.test('hub: late joiners behind the bounded buffer and slow subscribers replay from the engine, exactly', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  const app = await build(t)
  // A tiny buffer and queue make eviction and overflow happen with a handful of events.
  const hubs = new HistoryHubs(app.history.hubs.read, { bufferEvents: 2, maxQueuedEvents: 2 })
  t.teardown(() => hubs.closeAll())
  const { workflowId, firstExecutionRunId: runId } = handle

  const leader = Collector.follow(hubs, workflowId, runId, 0)
  const slow = new Collector()
  slow.full = true // it takes its first batch, then stops reading while events pile up
  slow.subscription = hubs.subscribe(workflowId, runId, 0, slow)
  await slow.until(() => slow.ids.length > 0)
  const slowFirst = [...slow.ids]
  await leader.until(() => leader.ids.length >= 2)
  for (let n = 1; n <= 5; n++) {
    await handle.signal('poke', n)
    await leader.until(() => leader.ids.length >= 2 + n)
  }
  t.same(leader.ids, [1, 2, 3, 4, 5, 6, 7], 'the leader follows live')
  t.same(slow.ids, slowFirst, 'the full subscriber was handed nothing more')
  const replaysBefore = hubs.metrics.replayCalls

  const late = Collector.follow(hubs, workflowId, runId, 1)
  await handle.terminate('end')
  await leader.ended
  slow.full = false
  slow.subscription.resume()
  await Promise.all([late.ended, slow.ended])
  t.same(late.ids, [2, 3, 4, 5, 6, 7, 8], 'a late joiner from event 1 gets the rest exactly once')
  t.same(slow.ids, [1, 2, 3, 4, 5, 6, 7, 8], 'a slow subscriber whose queue overflowed gets everything exactly once')
  t.same(leader.ids, [1, 2, 3, 4, 5, 6, 7, 8])
  for (const c of [late, slow, leader]) {
    t.match(c.last, { kind: 'done', terminal: { reason: 'WORKFLOW_EXECUTION_TERMINATED', eventId: 8 } })
    t.ok(c.subscription.closed, 'the end closes the subscription')
  }
  t.ok(hubs.metrics.replayCalls > replaysBefore, 'the buffer did not reach back far enough: they replayed from the engine')
  await hubs.whenIdle()
  t.equal(hubs.metrics.inFlight, 0)
})

t.test('hub: a full subscriber within its queue bound gets what waited once it resumes, with no engine call', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  const app = await build(t)
  const hubs = new HistoryHubs(app.history.hubs.read, { bufferEvents: 100, maxQueuedEvents: 100 })
  t.teardown(() => hubs.closeAll())
  const { workflowId, firstExecutionRunId: runId } = handle
  const leader = Collector.follow(hubs, workflowId, runId, 0)
  const paused = new Collector()
  paused.full = true
  paused.subscription = hubs.subscribe(workflowId, runId, 0, paused)
  await Promise.all([leader.until(() => leader.ids.length >= 2), paused.until(() => paused.ids.length > 0)])
  await handle.signal('poke', 1)
  await handle.terminate('end')
  await leader.ended
  t.equal(paused.last, undefined, 'nothing handed out while full, not even the end')
  paused.full = false
  paused.subscription.resume()
  await paused.ended
  t.same(paused.ids, leader.ids, 'the same events, in order, once each')
  t.match(paused.last, { kind: 'done' })
  t.equal(hubs.metrics.replayCalls, 0, 'served from its queue')
})

t.test('hub: a joiner the buffer covers needs no engine call of its own', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  await handle.signal('poke', 1)
  const app = await build(t)
  const hubs = new HistoryHubs(app.history.hubs.read, { bufferEvents: 100, maxQueuedEvents: 100 })
  t.teardown(() => hubs.closeAll())
  const first = Collector.follow(hubs, handle.workflowId, handle.firstExecutionRunId, 0)
  await first.until(() => first.ids.length > 0)
  const calls = hubs.metrics.upstreamCalls
  const joiners = Array.from({ length: 10 }, (_, i) => Collector.follow(hubs, handle.workflowId, handle.firstExecutionRunId, i % 3))
  await handle.terminate('end')
  await Promise.all(joiners.map(async (j) => await j.ended))
  joiners.forEach((j, i) => t.same(j.ids, [1, 2, 3, 4].filter((id) => id > i % 3), `joiner ${i}`))
  t.equal(hubs.metrics.replayCalls, 0, 'all served from the buffer')
  t.ok(hubs.metrics.upstreamCalls - calls <= 1, 'only the shared long-poll went on')
})

t.test('an engine failure after the stream started arrives as server_error, then the stream ends', async (t) => {
  // An engine of this test's own, so stopping it leaves the shared one alone.
  const dbFile = join(mkdtempSync(join(tmpdir(), 'flowport-stream-')), 'temporal.db')
  const engine = await startEngine({ dbFile })
  t.teardown(() => engine.stop())
  const connection = await Connection.connect({ address: engine.address })
  const client = new Client({ connection })
  const handle = await client.workflow.start('nobody-runs-this', { taskQueue: 'nobody', workflowId: 'doomed-by-outage', args: [] })
  await connection.close()
  const { base } = await listen(t, { TEMPORAL_ADDRESS: engine.address })

  const sse: SseConnection = await openSse(`${base}/workflow/doomed-by-outage/history/stream`)
  await sse.until((f) => eventIds(f).length >= 2)
  await engine.stop()
  await sse.ended
  const last = sse.frames.at(-1)!
  t.equal(last.event, 'server_error')
  t.same(JSON.parse(last.data), {
    error: 'EngineUnavailableError', message: 'The workflow engine is unavailable', workflowId: 'doomed-by-outage', runId: handle.firstExecutionRunId
  })
})
