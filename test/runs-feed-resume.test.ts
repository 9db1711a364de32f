/**
 * Runs-feed clients that come back together share the work (issue 49 item 3): clients resuming
 * from the same or nearby Last-Event-IDs (a replica restart) share one catch-up read of the
 * engine's visibility store, counted in the engine call metrics; sessions that began together end
 * spread out, so their clients do not all come back at the same moment.
 */
import t from 'tap'
import { build } from './helpers/app.js'
import { openSse, type Frame } from './helpers/history.js'
import { testCatalog } from './helpers/env.js'
import { newId, start, waitClosed } from './helpers/workflows.js'
import type { RunChange } from '../schemas/runs-feed.js'
import type { App } from '../app.js'

/** Engine ListWorkflowExecutions calls this app made (flowport_engine_call_duration_seconds). */
async function listCalls (app: App): Promise<number> {
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body
  return [...metrics.matchAll(/^flowport_engine_call_duration_seconds_count\{method="ListWorkflowExecutions",code="[A-Z_]+"\} (\d+)$/gm)]
    .reduce((sum, m) => sum + Number(m[1]), 0)
}

const startOf = (frames: Frame[], workflowId: string) =>
  frames.some((f) => f.event === 'run' && (JSON.parse(f.data) as RunChange).run.workflowId === workflowId)

t.test('clients resuming from the same or nearby ids share one catch-up read', async (t) => {
  // No poll during the test: every visibility query counted is a catch-up read.
  const app = await build(t, { SERVICE_RUNS_FEED_POLL_MS: '600000', SERVICE_RUNS_FEED_DELAY_MS: '500' })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const run = await start(t, app, 'hello', { name: 'resume-together' }, newId('resume-together'))
  await waitClosed(app, run.workflowId)
  // The run's start and close are older than the feed (made below), so only a catch-up read brings
  // them: the feed stands SERVICE_RUNS_FEED_DELAY_MS before the newest change the engine lists when
  // it starts (plugins/app/runs-feed/engine-clock.ts), a later run's.
  await new Promise((resolve) => setTimeout(resolve, 1500))
  await waitClosed(app, (await start(t, app, 'hello', { name: 'resume-later' }, newId('resume-later'))).workflowId)
  const url = `${base}/workflow/runs/stream?catalog=${encodeURIComponent(testCatalog())}`
  // The replica's first stream reads the engine's newest times once (engine-clock.ts): not counted.
  const opener = await openSse(url)
  await opener.until((f) => f.length >= 1)
  opener.close()
  const before = await listCalls(app)
  const since = Date.now() - 20_000
  // One client opens the feed, then 30 come back at once from ids a few hundred ms apart.
  const first = await openSse(url, { 'last-event-id': String(since) })
  await first.until((f) => startOf(f, run.workflowId))
  const together = await Promise.all(Array.from({ length: 30 }, async (_, i) => await openSse(url, { 'last-event-id': String(since + i * 300) })))
  for (const s of together) await s.until((f) => startOf(f, run.workflowId))
  // And 10 more a little later, while the first read is kept.
  const later = await Promise.all(Array.from({ length: 10 }, async () => await openSse(url, { 'last-event-id': String(since + 5000) })))
  for (const s of later) await s.until((f) => startOf(f, run.workflowId))
  const calls = await listCalls(app) - before
  for (const s of [first, ...together, ...later]) s.close()
  t.equal(together.length + later.length + 1, 41)
  t.ok(calls >= 1 && calls <= 2, `41 resuming clients made ${calls} visibility queries (one read, two if the ids straddle an alignment boundary)`)
  t.equal(app.runsFeed.size, 1, 'one feed for them all')
})

t.test('sessions that began together end spread over the last quarter of SERVICE_RUNS_FEED_SESSION_MS', async (t) => {
  const app = await build(t, { SERVICE_RUNS_FEED_POLL_MS: '200', SERVICE_RUNS_FEED_DELAY_MS: '500', SERVICE_SSE_HEARTBEAT_MS: '100', SERVICE_RUNS_FEED_SESSION_MS: '3000' })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `${base}/workflow/runs/stream?workflowName=${newId('none')}`
  const streams = await Promise.all(Array.from({ length: 20 }, async () => await openSse(url)))
  await Promise.all(streams.map(async (s) => await s.ended))
  // Every stream got one heartbeat per tick of the shared timer until its session ended.
  const beats = streams.map((s) => s.frames.filter((f) => f.event === 'progress').length)
  t.ok(streams.every((s) => s.frames[0]?.event === 'feed'), 'every session began')
  t.ok(Math.max(...beats) - Math.min(...beats) >= 2, `the sessions ended at different heartbeats (${beats.join(', ')}), not all at once`)
})
