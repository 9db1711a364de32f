/**
 * The engine goes away and comes back under a running API: while it is away, engine-backed
 * requests and readiness answer 503 EngineUnavailableError with Retry-After (the breaker, not a
 * deadline per request), open streams end with `server_error`; once it is back, the same API
 * process serves again and an EventSource that kept reconnecting resumes with every event exactly once.
 * The breaker opens only then: a request the engine fails alone (a query its store cannot run)
 * leaves every other request served, whereas a stopped engine and a frozen one (SIGSTOP) open it.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { EventSource } from 'undici'
import { Client, Connection } from '@temporalio/client'
import { build } from './helpers/app.js'
import { ownEngine } from './helpers/own-engine.js'
import { until } from './helpers/processes.js'

interface Received { event: string, data: any, id: string }

/**
 * What a page does with a browser's EventSource: it reconnects by itself after the stream ends
 * (Last-Event-ID), but gives up on a non-200 answer such as a 503, so the page opens a new one at
 * the last event id it saw (`?lastEventId=`), after a pause.
 */
function follow (url: string) {
  const received: Received[] = []
  let last: string | undefined
  let source: EventSource | undefined
  let finished = false
  const stats = { connects: 0, refused: 0 }
  const waiters = new Set<() => void>()
  const notify = () => { for (const w of [...waiters]) w() }

  const open = () => {
    if (finished) return
    const current = new EventSource(last === undefined ? url : `${url}?lastEventId=${encodeURIComponent(last)}`)
    source = current
    current.onopen = () => { stats.connects++ }
    for (const event of ['workflow', 'history', 'done', 'server_error']) {
      current.addEventListener(event, (e) => {
        const message = e as unknown as { data: string, lastEventId: string }
        received.push({ event, data: JSON.parse(message.data), id: message.lastEventId })
        if (event === 'history' || event === 'done') last = message.lastEventId
        if (event === 'done') {
          finished = true
          current.close()
        }
        notify()
      })
    }
    current.onerror = () => {
      // CONNECTING: the stream ended and the EventSource retries by itself. CLOSED: it was refused.
      if (current.readyState !== EventSource.CLOSED || finished) return
      stats.refused++
      notify()
      setTimeout(open, 500)
    }
  }
  open()

  return {
    received,
    stats,
    until: async (predicate: () => boolean) => {
      while (!predicate()) await new Promise<void>((resolve) => { const w = () => { waiters.delete(w); resolve() }; waiters.add(w) })
    },
    close: () => { finished = true; source?.close() }
  }
}

/** A count whose query holds a NUL, sent past the schemas as a query built from one would be: the store answers UNAVAILABLE. */
async function queryError (app: Awaited<ReturnType<typeof build>>): Promise<void> {
  const { engine } = app
  await engine.call(() => engine.client.workflowService.countWorkflowExecutions({ namespace: engine.namespace, query: 'TaskQueue = "a\u0000b"' }))
    .catch(() => undefined)
}

const historyIds = (received: Received[]) => received.filter((r) => r.event === 'history').flatMap((r) => (r.data as Array<{ eventId: string }>).map((e) => Number(e.eventId)))

t.test('engine down: 503 with Retry-After and streams end; engine back: the same API serves and a reconnecting EventSource resumes exactly', async (t) => {
  const engine = await ownEngine(t)
  const logs: string[] = []
  const app = await build(t, { TEMPORAL_ADDRESS: engine.address, SERVICE_CATALOG_ID: engine.catalog }, logs)
  // The breaker says when it opens and closes (plugins/app/engine/index.ts): the test counts both.
  const breakerLines = (msg: string) => logs.filter((line) => (JSON.parse(line) as { msg?: string }).msg === msg).length
  const opened = () => breakerLines('engine unreachable: answering 503 until it is back')
  const closed = () => breakerLines('engine reachable again')
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const ready = async () => (await app.inject({ method: 'GET', url: '/ready' })).statusCode === 200
  t.ok(await until(ready), 'ready once the worker has published its catalog')

  // A run no worker serves: its history grows only by the test's signals.
  const connect = async () => {
    const connection = await Connection.connect({ address: engine.address })
    t.teardown(() => connection.close())
    return new Client({ connection })
  }
  const before = await connect()
  const workflowId = `outage-${randomUUID()}`
  const handle = await before.workflow.start('nobody-runs-this', { taskQueue: `no-worker-${randomUUID()}`, workflowId, args: [] })
  await handle.signal('poke', 1)

  // One request the engine fails alone, as its store does a query with a NUL: not the engine away.
  await queryError(app)
  t.equal((await app.inject({ method: 'GET', url: '/ready' })).statusCode, 200, 'a query the store cannot run does not open the breaker')
  t.equal(opened(), 0, 'the breaker never opened')

  const follower = follow(`${base}/workflow/${workflowId}/history/stream`)
  t.teardown(() => follower.close())
  await follower.until(() => historyIds(follower.received).includes(3))

  await engine.kill()
  await follower.until(() => follower.received.some((r) => r.event === 'server_error'))
  const serverError = follower.received.find((r) => r.event === 'server_error')
  t.match(serverError?.data, { error: 'EngineUnavailableError', workflowId }, 'the open stream ends with server_error')

  // (GET /workflow/catalog is left out: it may answer from its 2-second cache.)
  const requests = [
    { method: 'GET', url: `/workflow/${workflowId}/status` },
    { method: 'GET', url: `/workflow/${workflowId}/history` },
    { method: 'GET', url: '/workflow/runs' },
    { method: 'POST', url: '/workflow/start', payload: { workflowName: 'hello', input: { name: 'Ada' } } },
    { method: 'POST', url: `/workflow/${workflowId}/signal/poke`, payload: { payload: 2 } }
  ] as const
  for (const request of requests) {
    // Twice: the first call may be the one that finds the engine gone, the second meets the open breaker.
    for (const attempt of ['first', 'second']) {
      const res = await app.inject(request)
      t.equal(res.statusCode, 503, `${request.method} ${request.url} (${attempt}) while the engine is down`)
      t.equal(res.json().error, 'EngineUnavailableError')
      t.match(res.headers['retry-after'], /^\d+$/, 'with Retry-After')
    }
  }
  t.equal(opened(), 1, 'the engine killed: the breaker opened, once')
  const notReady = await app.inject({ method: 'GET', url: '/ready' })
  t.equal(notReady.statusCode, 503, 'not ready while the engine is down')
  t.match(notReady.json(), { engine: false })
  t.ok(await until(async () => follower.stats.refused >= 1), 'the EventSource\'s reconnect is refused while the engine is down')

  await engine.restart()
  t.ok(await until(ready), 'the same API process is ready again')
  t.equal(closed(), 1, 'the breaker closed by itself')
  const status = await app.inject({ method: 'GET', url: `/workflow/${workflowId}/status` })
  t.equal(status.statusCode, 200, 'engine-backed requests are served again')
  t.equal(status.json().status, 'running')

  // The run goes on: a client of the restarted engine adds events and ends it.
  const after = await connect()
  const resumed = after.workflow.getHandle(workflowId)
  await resumed.signal('poke', 2)
  await resumed.terminate('done')
  await follower.until(() => follower.received.some((r) => r.event === 'done'))

  const ids = historyIds(follower.received)
  const full = await app.inject({ method: 'GET', url: `/workflow/${workflowId}/history?pageSize=1000` })
  t.same(ids, full.json().events.map((e: { eventId: string }) => Number(e.eventId)), 'every event of the run, each exactly once, in order')
  t.match(follower.received.at(-1), { event: 'done', data: { reason: 'WORKFLOW_EXECUTION_TERMINATED' } })
  t.ok(follower.stats.connects >= 2, `the stream resumed on a new connection (${follower.stats.connects} connects, ${follower.stats.refused} refused while down)`)

  // Frozen: the connection stays up and nothing answers. A listing (never cached, unlike a closed
  // run's status) passes its deadline, the breaker's probe goes unanswered too, and it opens;
  // thawed, the engine answers again.
  engine.freeze()
  const frozen = await app.inject({ method: 'GET', url: '/workflow/runs' })
  t.match({ status: frozen.statusCode, body: frozen.json() }, { status: 503, body: { error: 'EngineUnavailableError' } }, 'a listing while the engine is frozen')
  const frozenReady = await app.inject({ method: 'GET', url: '/ready' })
  t.match({ status: frozenReady.statusCode, body: frozenReady.json() }, { status: 503, body: { engine: false } }, 'not ready while frozen')
  t.equal(opened(), 2, 'the engine frozen: the breaker opened again')
  const refused = await app.inject({ method: 'GET', url: '/workflow/runs' })
  t.match({ status: refused.statusCode, body: refused.json() }, { status: 503, body: { error: 'EngineUnavailableError' } }, 'and refuses engine-backed requests while it is open')
  engine.thaw()
  t.ok(await until(ready), 'ready again once thawed')
  t.equal(closed(), 2, 'the breaker closed again')
  t.equal((await app.inject({ method: 'GET', url: '/workflow/runs' })).statusCode, 200, 'and serving')
})
