/**
 * The fuzz phase's own parts (scripts/fuzz-neighbour.ts, scripts/fuzz-malformed.ts). The probe
 * meets a tiny HTTP server standing in for the API, which answers 503 for a while (the fault the
 * probe exists to see: a real API would have to be broken to give it); the malformed pass meets
 * the real API, whose document it reads its routes from.
 */
import t, { type Test } from 'tap'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describeProbe, startNeighbourProbe } from '../scripts/fuzz-neighbour.js'
import { describeMalformed, malformedRequests, sendMalformed } from '../scripts/fuzz-malformed.js'
import { build } from './helpers/app.js'
import { until } from './helpers/processes.js'

/** An API stand-in answering `answer()` to every request, 200 `{workflowId}` to a start. */
async function standIn (t: Test, answer: () => number) {
  const seen: string[] = []
  const server = createServer((req, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url}`)
    const status = answer()
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(status === 200 ? { workflowId: 'neighbour-1' } : { error: 'EngineUnavailableError', message: 'The workflow engine is unreachable' }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.close() })
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

t.test('the probe starts, reads status and /ready, and reports every 503 with its request, answer and time', async (t) => {
  let status = 200
  const api = await standIn(t, () => status)
  const probe = startNeighbourProbe({ base: api.base, token: 'secret', intervalMs: 5 })
  t.ok(await until(async () => api.seen.length >= 8, 100, 20), 'the probe keeps asking')
  status = 503
  t.ok(await until(async () => api.seen.length >= 16, 100, 20))
  status = 200
  const report = await probe.stop()
  t.ok(api.seen.includes('POST /workflow/start'), 'starts runs')
  t.ok(api.seen.includes('GET /ready'), 'asks /ready')
  t.ok(api.seen.includes('GET /workflow/neighbour-1/status'), 'reads the status of the run it started')
  t.ok(report.faults.length > 0, 'the 503s are faults')
  t.match(report.faults[0], { status: 503, method: String, path: /^\//, at: /^\d{4}-\d\d-\d\dT/, body: /EngineUnavailableError/ })
  const described = describeProbe(report)
  t.notOk(described.passed, 'the phase fails')
  t.match(described.lines[0], new RegExp(`^neighbour probe: ${report.requests} requests \\(.*503: \\d+.*\\), ${report.faults.length} refused$`), 'with the count of requests')
  t.match(described.lines[1], /503 .*EngineUnavailableError/, 'and each refusal')
})

t.test('a 429 is the documented rate limit, not a fault; only 2xx and 429 pass', async (t) => {
  const api = await standIn(t, () => 429)
  const probe = startNeighbourProbe({ base: api.base, intervalMs: 5 })
  t.ok(await until(async () => api.seen.length >= 5, 100, 20))
  const report = await probe.stop()
  t.same(report.faults, [])
  t.ok(describeProbe(report).passed)
  t.equal(report.requests, report.byStatus['429'])
})

t.test('an API that does not answer is a fault too', async (t) => {
  const api = await standIn(t, () => 200)
  const probe = startNeighbourProbe({ base: api.base.replace(/:\d+$/, ':1'), intervalMs: 5 })
  await new Promise((resolve) => setTimeout(resolve, 50))
  const report = await probe.stop()
  t.ok(report.faults.length > 0)
  t.match(report.faults[0], { status: 0, body: /fetch failed|ECONNREFUSED/ })
  t.notOk(describeProbe(report).passed)
})

t.test('the malformed values reach every query and path parameter of every read in the document', async (t) => {
  const document = {
    paths: {
      '/things': { get: { parameters: [{ name: 'catalog', in: 'query' }, { name: 'name', in: 'query', required: true, example: 'hello' }] } },
      '/things/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true, example: 'x-1' }, { name: 'if-none-match', in: 'header' }] }, post: { parameters: [{ name: 'id', in: 'path' }] } }
    }
  }
  const requests = malformedRequests(document)
  const kinds = [...new Set(requests.map((r) => r.kind))]
  t.same([...new Set(requests.map((r) => r.parameter))], ['query catalog', 'query name', 'path id'], 'query and path parameters, not headers; reads only')
  t.equal(requests.length, kinds.length * 3)
  for (const kind of ['NUL', 'C0 control', 'DEL and C1', 'unpaired high surrogate', 'unpaired low surrogate', 'very long (100000)']) t.ok(kinds.includes(kind), kind)
  t.ok(requests.some((r) => r.url === '/things?catalog=a%00b&name=hello'), 'the other parameters at their examples')
  t.ok(requests.some((r) => r.url === '/things?name=a%ED%A0%80b'), 'a lone surrogate as the bytes a careless client sends')
  t.ok(requests.some((r) => r.url === '/things/a%00b'), 'in a path')
})

t.test('the real API answers every malformed value below 500', async (t) => {
  const app = await build(t)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const report = await sendMalformed(base, undefined, document)
  const described = describeMalformed(report)
  t.ok(report.sent > 500, `${report.sent} requests`)
  t.same(report.faults, [], described.lines.join('\n'))
  t.ok(described.passed)
  t.ok((report.byStatus['400'] ?? 0) > report.sent / 2, 'most are refused by the schemas')
})
