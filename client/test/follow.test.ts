/**
 * FlowportClient.follow() against the real API's history stream: every history event exactly once
 * (compared by event id with GET …/history), across a connection the API side destroys, across an
 * API restart on the same port (also behind a proxy answering 502 meanwhile, and 503 with
 * Retry-After), and when resuming with lastEventId; giving up when the API never comes back.
 */
import t, { type Test } from 'tap'
import type { Socket } from 'node:net'
import { build } from '../../test/helpers/app.js'
import { trackSockets } from '../../test/helpers/browser.js'
import { gateway } from '../../test/helpers/gateway.js'
import { until } from '../../test/helpers/processes.js'
import type { App } from '../../app.js'
import { FlowportClient, FlowportNetworkError, WorkflowNotFoundError, type StreamEvent } from '@flowport/client'

const catalog = process.env.FLOWPORT_TEST_CATALOG

async function listening (t: Test, port = 0): Promise<{ app: App, baseUrl: string, sockets: Set<Socket> }> {
  const app = await build(t)
  const sockets = trackSockets(app)
  const baseUrl = await app.listen({ port, host: '127.0.0.1' })
  return { app, baseUrl, sockets }
}

/** The ids of the run's whole history, from the paged history route. */
async function historyIds (app: App, workflowId: string): Promise<number[]> {
  const res = await app.inject({ method: 'GET', url: `/workflow/${encodeURIComponent(workflowId)}/history?pageSize=1000` })
  return res.json().events.map((e: { eventId: string }) => Number(e.eventId))
}

const idsOf = (events: StreamEvent[]) => events.flatMap((e) => e.event === 'history' ? e.data.map((h) => Number(h.eventId)) : [])

function checkExactlyOnce (t: Test, events: StreamEvent[], expected: number[]): void {
  const ids = idsOf(events)
  t.same(ids, expected, 'every history event exactly once, in order')
  t.equal(events.at(-1)?.event, 'done', 'ends with done')
  t.match(events.at(-1), { event: 'done', id: /^[A-Za-z0-9_-]{32}$/, data: { reason: 'WORKFLOW_EXECUTION_COMPLETED' } })
  t.notOk(events.some((e) => e.event === 'server_error'), 'no server_error')
}

t.test('follow a live sleepy run to its end', async (t) => {
  const { app, baseUrl } = await listening(t)
  const client = new FlowportClient({ baseUrl })
  const { workflowId } = await client.start('sleepy', { steps: 4, delayMs: 200 }, { catalog })
  const events: StreamEvent[] = []
  for await (const event of client.follow(workflowId)) events.push(event)
  t.equal(events[0]?.event, 'workflow')
  t.match(events[0], { event: 'workflow', data: { workflowId } })
  checkExactlyOnce(t, events, await historyIds(app, workflowId))
})

t.test('follow resumes by itself after the API side destroys the connection mid-run', async (t) => {
  const { app, baseUrl, sockets } = await listening(t)
  const client = new FlowportClient({ baseUrl })
  const { workflowId } = await client.start('sleepy', { steps: 8, delayMs: 400 }, { catalog })
  const events: StreamEvent[] = []
  let dropped = 0
  for await (const event of client.follow(workflowId)) {
    events.push(event)
    if (event.event === 'history' && dropped === 0) {
      dropped = sockets.size
      for (const socket of sockets) socket.destroy()
    }
  }
  t.ok(dropped >= 1, 'the stream connection was cut')
  t.ok(events.filter((e) => e.event === 'workflow').length >= 2, 'workflow again on the reconnect')
  checkExactlyOnce(t, events, await historyIds(app, workflowId))
})

t.test('follow resumes by itself across an API restart on the same port', async (t) => {
  const first = await listening(t)
  const port = Number(new URL(first.baseUrl).port)
  const attempts = { refused: 0 }
  const client = new FlowportClient({
    baseUrl: first.baseUrl,
    // The real fetch, counting the attempts that got no answer while the API was down.
    fetch: async (input, init) => {
      try {
        return await fetch(input, init)
      } catch (error) {
        attempts.refused++
        throw error
      }
    }
  })
  const { workflowId } = await client.start('sleepy', { steps: 8, delayMs: 400 }, { catalog })
  const events: StreamEvent[] = []
  let restart: Promise<App> | undefined
  for await (const event of client.follow(workflowId)) {
    events.push(event)
    if (event.event === 'history' && restart === undefined) {
      restart = (async () => {
        await first.app.close()
        // The API stays down until the client's reconnect attempt has been refused.
        while (attempts.refused === 0) await new Promise((resolve) => setTimeout(resolve, 50))
        return (await listening(t, port)).app
      })()
    }
  }
  t.ok(restart, 'the API was restarted')
  const second = await restart!
  t.ok(attempts.refused >= 1, `${attempts.refused} reconnect attempt(s) refused while the API was down`)
  t.ok(events.filter((e) => e.event === 'workflow').length >= 2, 'workflow again after the restart')
  checkExactlyOnce(t, events, await historyIds(second, workflowId))
})

t.test('follow rides out a proxy\'s 503 with Retry-After and its 502s while the API restarts, asking no sooner than Retry-After', async (t) => {
  const first = await listening(t)
  const port = Number(new URL(first.baseUrl).port)
  const proxy = await gateway(t, port)
  const client = new FlowportClient({ baseUrl: proxy.url })
  const { workflowId } = await client.start('sleepy', { steps: 30, delayMs: 1000 }, { catalog })
  const streams = () => proxy.answers.filter((a) => a.path.endsWith('/history/stream'))
  const answered = (status: number) => until(() => streams().some((a) => a.status === status), 1200, 50)
  const events: StreamEvent[] = []
  let restart: Promise<App> | undefined
  for await (const event of client.follow(workflowId)) {
    events.push(event)
    if (event.event === 'history' && restart === undefined) {
      restart = (async () => {
        // The engine is away (503, Retry-After: 7), then the API is down (the proxy's 502), then back on its port.
        proxy.unavailable(7)
        await first.app.close()
        if (!await answered(503)) throw new Error('no reconnect attempt met the 503')
        proxy.unavailable(null)
        if (!await answered(502)) throw new Error('no reconnect attempt met the 502')
        return (await listening(t, port)).app
      })()
    }
  }
  t.ok(restart, 'the API was restarted')
  const second = await restart!
  checkExactlyOnce(t, events, await historyIds(second, workflowId))
  const seen = streams()
  const unavailable = seen.findIndex((a) => a.status === 503)
  t.ok(seen[unavailable + 1].at - seen[unavailable].at >= 7000, `the attempt after the 503 came ${seen[unavailable + 1].at - seen[unavailable].at} ms later: no sooner than its Retry-After`)
  t.ok(seen.some((a) => a.status === 502), 'a 502 was ridden out')
  t.ok(seen.slice(1).every((a) => a.lastEventId !== undefined), 'every reconnect resumed with Last-Event-ID')
})

t.test('follow gives up after maxReconnectWaitMs when the API never comes back, and says so', async (t) => {
  const { app, baseUrl } = await listening(t)
  const client = new FlowportClient({ baseUrl })
  const { workflowId } = await client.start('sleepy', { steps: 6, delayMs: 1000 }, { catalog })
  const events: StreamEvent[] = []
  let closed: Promise<void> | undefined
  const failure = await (async () => {
    try {
      for await (const event of client.follow(workflowId, { maxReconnectWaitMs: 3000 })) {
        events.push(event)
        if (event.event === 'history') closed ??= app.close()
      }
    } catch (error) {
      return error
    }
  })()
  await closed
  t.ok(events.some((e) => e.event === 'history'), 'it was following')
  t.type(failure, FlowportNetworkError, 'the last error: no answer')
  t.match((failure as Error).message, new RegExp(`^Gave up reconnecting to ${baseUrl} after 3 s without a live stream; the last attempt: No answer from`), 'the message says it gave up, and why')
})

t.test('follow with lastEventId gets exactly the rest; after done it ends at once', async (t) => {
  const { app, baseUrl } = await listening(t)
  const client = new FlowportClient({ baseUrl })
  const { workflowId, runId } = await client.start('sleepy', { steps: 4, delayMs: 200 }, { catalog })
  const head: StreamEvent[] = []
  for await (const event of client.follow(workflowId)) {
    head.push(event)
    if (event.event === 'history') break
  }
  const last = head.at(-1)
  t.equal(last?.event, 'history')
  const tail: StreamEvent[] = []
  for await (const event of client.follow(workflowId, { lastEventId: (last as { id: string }).id })) tail.push(event)
  checkExactlyOnce(t, [...head, ...tail], await historyIds(app, workflowId))

  const done = tail.at(-1) as { id: string }
  const after: StreamEvent[] = []
  for await (const event of client.follow(workflowId, { runId, lastEventId: done.id })) after.push(event)
  t.same(after, [], 'nothing after done (204)')

  const payloads: StreamEvent[] = []
  for await (const event of client.follow(workflowId, { runId, includePayloads: true })) payloads.push(event)
  const started = payloads.flatMap((e) => e.event === 'history' ? e.data : [])[0] as Record<string, any>
  t.match(started.workflowExecutionStartedEventAttributes.input, [{ steps: 4, delayMs: 200 }], 'payloads decoded')
})

t.test('follow: a JSON error before the stream throws its class; aborting ends the iterator cleanly', async (t) => {
  const { baseUrl } = await listening(t)
  const client = new FlowportClient({ baseUrl })
  await t.rejects(async () => {
    for await (const event of client.follow('no-such-workflow-for-follow')) t.fail(`unexpected ${event.event}`)
  }, WorkflowNotFoundError)

  const { workflowId } = await client.start('sleepy', { steps: 20, delayMs: 500 }, { catalog })
  const controller = new AbortController()
  const events: StreamEvent[] = []
  for await (const event of client.follow(workflowId, { signal: controller.signal })) {
    events.push(event)
    if (event.event === 'history') controller.abort()
  }
  t.equal(events.at(-1)?.event, 'history', 'the loop ended after the abort without an error')
  await client.terminate(workflowId)
})
