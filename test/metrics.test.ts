/**
 * The API's Prometheus metrics after real traffic against the real engine: request counts per
 * route template and status match what was sent (no raw path, no workflow id in any label),
 * engine calls per gRPC method, open streams, hubs and long-polls while a stream is open, catalog
 * cache hits; /metrics behind the token, the separate port without it, and the switch that turns
 * it all off.
 */
import t from 'tap'
import { request } from 'undici'
import type { AddressInfo } from 'node:net'
import { build } from './helpers/app.js'
import { engineClient, openSse, startIdle } from './helpers/history.js'
import { parseMetrics, total } from './helpers/prometheus.js'
import { newId } from './helpers/workflows.js'
import type { App } from '../app.js'

async function scrape (app: App, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url: '/metrics', headers })
  return { status: res.statusCode, type: res.headers['content-type'], samples: res.statusCode === 200 ? parseMetrics(res.body) : [], body: res.body }
}

t.test('request counts per route template and status match the traffic sent; engine calls per method; catalog cache hits', async (t) => {
  const app = await build(t)
  const ids = [newId('metrics-a'), newId('metrics-b')]
  const runs = 3
  for (const [i, workflowId] of ids.entries()) {
    const res = await app.inject({ method: 'POST', url: '/workflow/run', payload: { workflowName: 'hello', input: { name: `n${i}` }, workflowId } })
    t.equal(res.statusCode, 200)
  }
  for (let i = 0; i < runs; i++) {
    for (const id of ids) t.equal((await app.inject({ method: 'GET', url: `/workflow/${id}/status` })).statusCode, 200)
  }
  t.equal((await app.inject({ method: 'GET', url: `/workflow/${newId('missing')}/status` })).statusCode, 404)
  t.equal((await app.inject({ method: 'GET', url: '/no/such/path' })).statusCode, 404)
  t.equal((await app.inject({ method: 'POST', url: '/workflow/start', payload: { workflowName: 'hello', input: { wrong: 1 } } })).statusCode, 400)

  const { status, type, samples, body } = await scrape(app)
  t.equal(status, 200)
  t.match(type, /^text\/plain; version=0\.0\.4/)
  const requests = (labels: Record<string, string>) => total(samples, 'flowport_http_requests_total', labels)
  t.equal(requests({ method: 'POST', route: '/workflow/run', status_code: '200' }), 2)
  t.equal(requests({ method: 'GET', route: '/workflow/:id/status', status_code: '200' }), runs * ids.length)
  t.equal(requests({ method: 'GET', route: '/workflow/:id/status', status_code: '404' }), 1)
  t.equal(requests({ method: 'POST', route: '/workflow/start', status_code: '400' }), 1)
  t.equal(requests({ method: 'GET', route: 'unmatched', status_code: '404' }), 1, 'an unknown path counts under one label')
  t.equal(total(samples, 'flowport_http_request_duration_seconds_count', { route: '/workflow/:id/status' }), runs * ids.length + 1, 'the histogram counts the same requests')
  for (const id of ids) t.notOk(body.includes(id), 'no workflow id in any label')
  t.notOk(body.includes('/no/such/path'), 'no raw path in any label')

  t.equal(total(samples, 'flowport_engine_call_duration_seconds_count', { method: 'StartWorkflowExecution', code: 'OK' }), 2, 'one start call per run')
  t.ok(total(samples, 'flowport_engine_call_duration_seconds_count', { method: 'DescribeWorkflowExecution' }) >= runs * ids.length, 'status reads describe the run')
  t.equal(total(samples, 'flowport_engine_call_errors_total', { method: 'DescribeWorkflowExecution', code: 'NOT_FOUND' }), 1, 'the unknown run is one NOT_FOUND')
  t.ok(total(samples, 'flowport_cache_requests_total', { cache: 'catalog', result: 'miss' }) >= 1, 'the first start read the catalog')
  t.ok(total(samples, 'flowport_cache_requests_total', { cache: 'catalog', result: 'hit' }) >= 1, 'a later one found it cached')
  t.ok(total(samples, 'process_cpu_user_seconds_total') > 0, 'process metrics')
  t.ok(samples.some((s) => s.name === 'nodejs_eventloop_lag_seconds'), 'event-loop lag')
})

t.test('an open stream shows in the stream, hub and long-poll gauges, and leaves them when it closes', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  const app = await build(t)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const gauges = async () => {
    const { samples } = await scrape(app)
    return ['flowport_sse_streams_open', 'flowport_history_hubs_live', 'flowport_history_long_polls_in_flight'].map((n) => total(samples, n))
  }
  t.same(await gauges(), [0, 0, 0])
  const streams = await Promise.all([1, 2].map(async () => await openSse(`${base}/workflow/${handle.workflowId}/history/stream`)))
  await Promise.all(streams.map(async (s) => await s.until((frames) => frames.some((f) => f.event === 'history'))))
  // The shared long-poll is opened right after the first batch: wait for it rather than race it.
  while (app.history.hubs.metrics.longPollsInFlight === 0) await new Promise((resolve) => setImmediate(resolve))
  t.same(await gauges(), [2, 1, 1], 'two streams, one hub, one shared long-poll')
  for (const s of streams) s.close()
  await Promise.all(streams.map(async (s) => await s.ended))
  await app.history.hubs.whenIdle()
  while (app.openStreams.size > 0) await new Promise((resolve) => setImmediate(resolve))
  t.same(await gauges(), [0, 0, 0])
  const { samples } = await scrape(app)
  t.equal(total(samples, 'flowport_http_requests_total', { route: '/workflow/:id/history/stream', status_code: '200' }), 2, 'each closed stream counted once')
  await handle.terminate()
})

t.test('with auth on, /metrics needs the token; SERVICE_METRICS_PORT serves it without auth', async (t) => {
  const token = 'metrics-test-token-0123456789'
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: token, SERVICE_METRICS_PORT: '0', HOST: '127.0.0.1' })
  t.equal((await scrape(app)).status, 401)
  const authorized = await scrape(app, { authorization: `Bearer ${token}` })
  t.equal(authorized.status, 200)
  t.ok(authorized.samples.length > 0)

  const server = app.metricsServer
  t.ok(server, 'the separate listener runs once the app is ready')
  const port = (server!.address() as AddressInfo).port
  const open = await request(`http://127.0.0.1:${port}/metrics`)
  t.equal(open.statusCode, 200)
  t.match(open.headers['content-type'], /^text\/plain/)
  const samples = parseMetrics(await open.body.text())
  t.equal(total(samples, 'flowport_http_requests_total', { route: '/metrics', status_code: '401' }), 1, 'the separate port serves the same registry')
  const other = await request(`http://127.0.0.1:${port}/workflow/runs`)
  t.equal(other.statusCode, 404, 'nothing else is served there')
  t.equal((await other.body.json() as { error: string }).error, 'RouteNotFoundError')
  await app.close()
  t.notOk(server!.listening, 'closed with the app')
})

t.test('SERVICE_METRICS_ENABLED=false: no /metrics, no separate listener', async (t) => {
  const app = await build(t, { SERVICE_METRICS_ENABLED: 'false', SERVICE_METRICS_PORT: '0' })
  const res = await app.inject({ method: 'GET', url: '/metrics' })
  t.equal(res.statusCode, 404)
  t.equal(app.metrics, null)
  await app.ready()
  t.equal(app.metricsServer, null)
})
