/**
 * OpenTelemetry traces end to end with real parts: the API (OTLP/HTTP protobuf, the default) and a
 * worker process (OTLP/HTTP JSON) export to a real receiver; one POST /workflow/run of hello that
 * carries a `traceparent` gives one trace: the caller's span → the HTTP span → StartWorkflow →
 * RunWorkflow → StartActivity → RunActivity of `hello#greet`. Without OTEL settings: nothing.
 */
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { resolve } from 'node:path'
import { build } from './helpers/app.js'
import { startOtlpReceiver, type ReceivedSpan } from './helpers/otlp-receiver.js'
import { until } from './helpers/processes.js'
import { newId } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'

const SERVER = 2 // OTLP SpanKind

t.test('one POST /workflow/run of hello is one trace from the caller through the workflow to its step', async (t) => {
  const receiver = await startOtlpReceiver(t)
  const catalog = newId('traced')
  const worker = spawnWorker(t, {
    SERVICE_CATALOG_ID: catalog,
    SERVICE_WORKFLOWS_DIR: resolve('test/fixtures/workflows'),
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'worker-under-test',
    // Export each batch soon after it is made, instead of every 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '100'
  }, process.cwd())
  await worker.waitFor(`Worker polling catalog ${catalog}`)
  t.match(worker.output(), 'Worker traces go to the OTLP endpoint')

  const app = await build(t, { SERVICE_CATALOG_ID: catalog, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'api-under-test' })
  t.ok(app.tracing, 'tracing is on')
  const traceId = randomBytes(16).toString('hex')
  const callerSpanId = randomBytes(8).toString('hex')
  const res = await app.inject({
    method: 'POST',
    url: '/workflow/run',
    headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
    payload: { workflowName: 'hello', input: { name: 'Ada' } }
  })
  t.equal(res.statusCode, 200)
  t.equal(res.json<{ status: string }>().status, 'completed')
  const status = await app.inject({ method: 'GET', url: `/workflow/${res.json<{ workflowId: string }>().workflowId}/status` })
  t.equal(status.statusCode, 200)
  await app.tracing!.provider.forceFlush()

  const ofTrace = () => receiver.spans.filter((s) => s.traceId === traceId)
  const named = (name: string) => ofTrace().find((s) => s.name === name)
  t.ok(await until(() => named('RunActivity:hello#greet') !== undefined, 120, 250), 'the step span arrived')

  const http = named('POST /workflow/run')
  const start = named('StartWorkflow:hello')
  const run = named('RunWorkflow:hello')
  const schedule = named('StartActivity:hello#greet')
  const step = named('RunActivity:hello#greet')
  const expectChild = (child: ReceivedSpan | undefined, parent: ReceivedSpan | undefined, what: string) => {
    t.ok(child && parent, `${what}: both spans arrived`)
    t.equal(child?.parentSpanId, parent?.spanId, what)
  }
  t.equal(http?.parentSpanId, callerSpanId, 'the HTTP span is a child of the caller\'s traceparent')
  t.match(http, { service: 'api-under-test', kind: SERVER, encoding: 'protobuf', attributes: { 'http.route': '/workflow/run', 'http.request.method': 'POST', 'http.response.status_code': 200 } })
  expectChild(start, http, 'the client\'s StartWorkflow span is a child of the HTTP span')
  t.match(start, { service: 'api-under-test' }, 'made by the API\'s Temporal client')
  expectChild(run, start, 'RunWorkflow (in the worker) is a child of StartWorkflow')
  expectChild(schedule, run, 'StartActivity is a child of RunWorkflow')
  expectChild(step, schedule, 'RunActivity of hello#greet is a child of StartActivity')
  for (const s of [run, schedule, step]) t.match(s, { service: 'worker-under-test', encoding: 'json' })

  const read = receiver.spans.find((s) => s.name === 'GET /workflow/:id/status')
  t.ok(read, 'a request without traceparent gets a span of its own, named by route template')
  t.equal(read?.parentSpanId, '', 'a root span')
  t.not(read?.traceId, traceId, 'in a trace of its own')
  t.match(read?.attributes['url.path'], /^\/workflow\/hello-|^\/workflow\/[0-9a-f-]{36}\/status$/)
})

t.test('without an OTLP endpoint tracing is off: no tracer, no request hook', async (t) => {
  const app = await build(t, { OTEL_SERVICE_NAME: 'unused' })
  t.equal(app.tracing, null)
  t.notOk(app.hasRequestDecorator('otelContext'), 'requests carry nothing extra')
  const res = await app.inject({ method: 'GET', url: '/health', headers: { traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01` } })
  t.equal(res.statusCode, 200)
})

t.test('OTEL_TRACES_SAMPLER=always_off (or a ratio of 0): requests succeed and no span is exported', async (t) => {
  const receiver = await startOtlpReceiver(t)
  const traffic = async (app: Awaited<ReturnType<typeof build>>) => {
    const res = await app.inject({
      method: 'POST',
      url: '/workflow/run',
      // A sampled parent: always_off drops it anyway.
      headers: { traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01` },
      payload: { workflowName: 'hello', input: { name: 'unsampled' } }
    })
    t.equal(res.statusCode, 200)
    t.equal(res.json<{ status: string }>().status, 'completed')
    t.equal((await app.inject({ method: 'GET', url: `/workflow/${res.json<{ workflowId: string }>().workflowId}/status` })).statusCode, 200)
    await app.tracing!.provider.forceFlush()
  }
  const samplers: Array<Record<string, string>> = [{ OTEL_TRACES_SAMPLER: 'always_off' }, { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }]
  for (const sampler of samplers) {
    const app = await build(t, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'unsampled', ...sampler })
    t.ok(app.tracing, `${sampler.OTEL_TRACES_SAMPLER}: tracing is configured`)
    await traffic(app)
    t.equal(receiver.spans.length, 0, `${sampler.OTEL_TRACES_SAMPLER}: no span arrived`)
  }
  // The same receiver and requests with the default sampler: spans arrive, so the zeros above are the sampler's.
  const sampled = await build(t, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'sampled' })
  await traffic(sampled)
  t.ok(await until(() => receiver.spans.some((s) => s.name === 'POST /workflow/run'), 120, 250), 'with the default sampler the request span arrives')
})
