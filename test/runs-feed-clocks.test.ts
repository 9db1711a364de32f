/**
 * Runs-feed positions do not depend on clocks agreeing (issue 49 item 7): a client that moves
 * between a replica whose clock runs 30 s ahead (or behind) and one on time, both ways, with Last-Event-ID,
 * gets every start and close of its runs exactly once, in feed order, and is never refused. The
 * skewed clock is a seam of the app (BuildOptions.localClock): a process cannot be given a clock of
 * its own here. The feed's positions are engine times (plugins/app/runs-feed/engine-clock.ts).
 */
import t from 'tap'
import type { Test } from 'tap'
import { build } from './helpers/app.js'
import { openSse, type Frame } from './helpers/history.js'
import { testCatalog } from './helpers/env.js'
import { start, waitClosed } from './helpers/workflows.js'
import { comparePositions, decodePosition } from '../plugins/app/runs-feed/position.js'
import type { RunChange } from '../schemas/runs-feed.js'
import type { App } from '../app.js'

const FEED_ENV = { SERVICE_RUNS_FEED_POLL_MS: '200', SERVICE_RUNS_FEED_DELAY_MS: '500', SERVICE_SSE_HEARTBEAT_MS: '100' }

const changes = (frames: Frame[]) => frames.filter((f) => f.event === 'run').map((f) => ({ id: f.id!, ...JSON.parse(f.data) as RunChange }))
const seen = (frames: Frame[], workflowId: string, change: RunChange['change']) =>
  changes(frames).filter((c) => c.run.workflowId === workflowId && c.change === change).length
/** The last id a client has: an EventSource's Last-Event-ID. */
const lastId = (frames: Frame[]) => frames.filter((f) => f.id !== undefined).at(-1)!.id!

async function hello (t: Test, app: App, name: string) {
  const run = await start(t, app, 'hello', { name })
  t.equal(await waitClosed(app, run.workflowId), 'COMPLETED', `${name} completed`)
  return run
}

for (const [skewMs, off] of [[30_000, 'ahead'], [-30_000, 'behind']] as const) {
  t.test(`a client moving between a replica 30 s ${off} and one on time gets every change once, in order, never refused`, async (t) => {
    const onTime = await build(t, FEED_ENV)
    const skewed = await build(t, FEED_ENV, undefined, { localClock: () => Date.now() + skewMs })
    const url = async (app: App) => `${await app.listen({ port: 0, host: '127.0.0.1' })}/workflow/runs/stream?catalog=${encodeURIComponent(testCatalog())}`
    const [onTimeUrl, skewedUrl] = [await url(onTime), await url(skewed)]
    // A run before the feeds start: the namespace lists a time the engine's clock has passed.
    await hello(t, onTime, 'before')

    const first = await openSse(skewedUrl)
    t.equal(first.statusCode, 200)
    await first.until((f) => f.some((x) => x.event === 'progress' && x.id !== undefined))
    const r1 = await hello(t, onTime, `while on the replica ${off}`)
    await first.until((f) => seen(f, r1.workflowId, 'closed') === 1)
    t.pass(`the replica ${off} sends a run that started after its stream opened`)
    await first.until((f) => f.at(-1)!.event === 'progress')
    first.close()

    const r2 = await hello(t, onTime, `away from the replica ${off}`)
    const second = await openSse(onTimeUrl, { 'last-event-id': lastId(first.frames) })
    t.equal(second.statusCode, 200, `the replica on time resumes from the id of the one ${off}`)
    await second.until((f) => seen(f, r2.workflowId, 'closed') === 1)
    await second.until((f) => f.at(-1)!.event === 'progress' && f.at(-1)!.id !== undefined)
    second.close()

    const r3 = await hello(t, onTime, 'away from the replica on time')
    const third = await openSse(skewedUrl, { 'last-event-id': lastId(second.frames) })
    t.equal(third.statusCode, 200, `the replica ${off} resumes from the id of the one on time`)
    await third.until((f) => seen(f, r3.workflowId, 'closed') === 1)
    third.close()

    const sessions = [first, second, third]
    t.same(sessions.map((s) => s.frames.filter((f) => f.event === 'expired').length), [0, 0, 0], 'no resume expired')
    const all = sessions.flatMap((s) => changes(s.frames))
    for (const run of [r1, r2, r3]) {
      for (const change of ['started', 'closed'] as const) {
        t.equal(all.filter((c) => c.run.workflowId === run.workflowId && c.change === change).length, 1, `one ${change} of ${run.workflowId}`)
      }
    }
    const positions = sessions.flatMap((s) => s.frames.filter((f) => f.id !== undefined).map((f) => decodePosition(f.id!)!))
    t.ok(positions.every((p, i) => i === 0 || comparePositions(positions[i - 1]!, p) < 0), 'ids strictly increase across replicas: nothing twice, feed order')
    t.ok(positions.every((p) => p.ms <= Date.now()), 'no id is ahead of the engine\'s time, whatever the replica\'s clock')
  })
}
