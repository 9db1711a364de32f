/**
 * Open streams are counted and capped (issue 49 item 4): per key (429 RateLimitedError) and per
 * replica (503 StreamCapacityError), both with Retry-After, on the history stream and the runs
 * feed alike; a slot comes back when its connection closes; distinct runs-feed filter sets are
 * capped (503) while a filter set already polled still admits clients; the metrics count both.
 */
import t from 'tap'
import { build } from './helpers/app.js'
import { bearer, keysFile } from './helpers/keys.js'
import { engineClient, openSse, startIdle, type SseConnection } from './helpers/history.js'
import { assertContract } from './helpers/contract.js'
import { newId } from './helpers/workflows.js'

const settle = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
}

t.test('past SERVICE_STREAMS_MAX_PER_KEY a key gets 429, other keys still stream; a closed stream frees its slot', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  t.teardown(() => handle.terminate('test over'))
  const { keys, file } = keysFile(t, [{ id: 'viewer', scopes: ['read'] }, { id: 'other', scopes: ['read'] }])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file, SERVICE_STREAMS_MAX_PER_KEY: '2' })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const history = `${base}/workflow/${handle.workflowId}/history/stream`
  const feed = `${base}/workflow/runs/stream?workflowName=${newId('none')}`

  const open: SseConnection[] = [await openSse(history, bearer(keys.viewer!)), await openSse(feed, bearer(keys.viewer!))]
  t.same(open.map((s) => s.statusCode), [200, 200], 'two streams of one key: the history stream and the feed count alike')
  const over = await openSse(history, bearer(keys.viewer!))
  t.equal(over.statusCode, 429, 'a third stream of the key is refused')
  const text = await over.body()
  const body = JSON.parse(text)
  t.match(body, { error: 'RateLimitedError', message: /Key viewer has 2 streams open.*SERVICE_STREAMS_MAX_PER_KEY/ })
  t.equal(over.headers['retry-after'], '10', 'with Retry-After')
  assertContract(t, 'GET', '/workflow/{id}/history/stream', { statusCode: 429, body: text, headers: over.headers })
  const feedOver = await openSse(feed, bearer(keys.viewer!))
  t.equal(feedOver.statusCode, 429, 'the feed too')
  await feedOver.body()

  const other = await openSse(history, bearer(keys.other!))
  t.equal(other.statusCode, 200, 'another key has its own count')
  other.close()

  open[0]!.close()
  await settle(() => app.streamSlots.open === 1)
  const again = await openSse(history, bearer(keys.viewer!))
  t.equal(again.statusCode, 200, 'a closed stream gives its slot back')
  open.push(again)
  const metrics = (await app.inject({ method: 'GET', url: '/metrics', headers: bearer(keys.viewer!) })).body
  t.match(metrics, /^flowport_sse_streams_refused_total\{cap="key"\} 2$/m, 'the refusals are counted by cap')
  t.match(metrics, /^flowport_sse_streams_open 2$/m, 'the open streams are counted')
  for (const s of open) s.close()
  await settle(() => app.streamSlots.open === 0)
  t.equal(app.streamSlots.open, 0, 'every slot comes back')
})

t.test('past SERVICE_STREAMS_MAX the replica answers 503 StreamCapacityError with Retry-After', async (t) => {
  const app = await build(t, { SERVICE_STREAMS_MAX: '2' })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const feed = `${base}/workflow/runs/stream?workflowName=${newId('none')}`
  const open = [await openSse(feed), await openSse(feed)]
  t.same(open.map((s) => s.statusCode), [200, 200])
  const over = await openSse(feed)
  t.equal(over.statusCode, 503)
  const text = await over.body()
  const body = JSON.parse(text)
  t.match(body, { error: 'StreamCapacityError', message: /SERVICE_STREAMS_MAX/ })
  t.equal(over.headers['retry-after'], '10')
  assertContract(t, 'GET', '/workflow/runs/stream', { statusCode: 503, body: text, headers: over.headers })
  const invalid = await openSse(`${base}/workflow/runs/stream?pageSize=1`)
  t.equal(invalid.statusCode, 400, 'a bad request is its own 400, not a refusal at the cap')
  await invalid.body()
  for (const s of open) s.close()
  await settle(() => app.streamSlots.open === 0)
  const after = await openSse(feed)
  t.equal(after.statusCode, 200, 'room again once streams closed')
  after.close()
  t.match((await app.inject({ method: 'GET', url: '/metrics' })).body, /^flowport_sse_streams_refused_total\{cap="total"\} 1$/m)
})

t.test('past SERVICE_RUNS_FEED_MAX_FEEDS a new filter set is a 503; a filter set already polled admits more clients', async (t) => {
  const app = await build(t, { SERVICE_RUNS_FEED_MAX_FEEDS: '2' })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const url = (name: string) => `${base}/workflow/runs/stream?workflowName=${name}`
  const [a, b] = [newId('feed-a'), newId('feed-b')]
  const open = [await openSse(url(a)), await openSse(url(b))]
  for (const s of open) await s.until((f) => f.length >= 1)
  t.equal(app.runsFeed.size, 2)
  const third = await openSse(url(newId('feed-c')))
  t.equal(third.statusCode, 503, 'a third filter set is refused')
  const text = await third.body()
  const body = JSON.parse(text)
  t.match(body, { error: 'StreamCapacityError', message: /SERVICE_RUNS_FEED_MAX_FEEDS/ })
  t.equal(third.headers['retry-after'], '10')
  assertContract(t, 'GET', '/workflow/runs/stream', { statusCode: 503, body: text, headers: third.headers })
  t.equal(app.runsFeed.size, 2, 'no poll was started for it')
  await settle(() => app.streamSlots.open === 2)
  t.equal(app.streamSlots.open, 2, 'and its stream slot came back')

  const same = await openSse(url(a))
  t.equal(same.statusCode, 200, 'the filters of a feed already polled still get in')
  open.push(same)
  t.match((await app.inject({ method: 'GET', url: '/metrics' })).body, /^flowport_runs_feed_refused_total\{cap="feeds"\} 1$/m)
  open[1]!.close()
  await settle(() => app.runsFeed.size === 1)
  const later = await openSse(url(newId('feed-d')))
  t.equal(later.statusCode, 200, 'a feed that stopped makes room')
  later.close()
  for (const s of open) s.close()
})
