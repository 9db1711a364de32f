/**
 * One client's malformed request never takes the API down for another (issue 54): a value that
 * would enter a visibility query of the engine is refused by its schema (400 ValidationError
 * naming the field) before any engine call, and a query the engine's store cannot run fails that
 * request alone instead of opening the engine breaker for every client.
 */
import t from 'tap'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { start } from './helpers/workflows.js'

/** What a fuzzer sends: a NUL, other control characters, a value longer than any bound. */
const MALFORMED = ['a\u0000b', '\u0001', 'a\u001bb', 'a\u007f', 'a\u0085', 'x'.repeat(1001)]

interface Malformed { method: 'GET' | 'POST', url: string, payload?: object, field: string }

const q = encodeURIComponent

/** Every route that builds a visibility query, with `value` in each field that enters it. */
function requests (value: string): Malformed[] {
  return [
    { method: 'GET', url: `/evals?workflowName=hello&catalog=${q(value)}`, field: '/catalog' },
    ...['workflowName', 'catalog', 'scheduleId'].flatMap((field): Malformed[] => [
      { method: 'GET', url: `/workflow/runs?${field}=${q(value)}`, field: `/${field}` },
      { method: 'GET', url: `/workflow/runs/stream?${field}=${q(value)}`, field: `/${field}` }
    ]),
    { method: 'GET', url: `/schedules?catalog=${q(value)}`, field: '/catalog' },
    { method: 'GET', url: `/schedules?workflowName=${q(value)}`, field: '/workflowName' },
    { method: 'POST', url: '/workflow/batch', payload: { action: 'terminate', filter: { catalog: value }, reason: 'fuzz' }, field: '/filter/catalog' },
    { method: 'GET', url: `/deployments/${q(value)}`, field: '/deploymentName' }
  ]
}

/** A batch's raw query holds the values itself: the same characters are refused in it (tabs and line breaks are whitespace there). */
const rawQueries: Malformed[] = [...MALFORMED.slice(0, 5), '\ud800'].map((value) => ({
  method: 'POST', url: '/workflow/batch', payload: { action: 'terminate', filter: { query: `TaskQueue = "${value}"` }, reason: 'fuzz' }, field: '/filter/query'
}))

const all = [...MALFORMED.flatMap(requests), ...rawQueries]
const label = (r: Malformed) => `${r.method} ${r.url.slice(0, 60)}${r.payload ? ` ${JSON.stringify(r.payload).slice(0, 80)}` : ''}`

/** Status and JSON body; a stream that was let through (the test fails then) is left, not waited for. */
async function send (app: App, r: Malformed): Promise<{ statusCode: number, body: { error?: string, issues?: Array<{ path: string }> } }> {
  const res = await app.inject({ method: r.method, url: r.url, payloadAsStream: true, ...(r.payload === undefined ? {} : { payload: r.payload }) })
  const stream = res.stream()
  if (String(res.headers['content-type']).startsWith('text/event-stream')) {
    stream.destroy()
    return { statusCode: res.statusCode, body: {} }
  }
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return { statusCode: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString()) }
}

t.test('each malformed query value is a 400 ValidationError naming its field, with no engine call', async (t) => {
  // An engine that is never there: any request that reached it would answer 503, not 400.
  const app = await build(t, { TEMPORAL_ADDRESS: '127.0.0.1:1' })
  for (const r of all) {
    const { statusCode, body } = await send(app, r)
    t.equal(statusCode, 400, label(r))
    t.equal(body.error, 'ValidationError')
    t.ok(body.issues?.some((issue) => issue.path === r.field), `names ${r.field}: ${JSON.stringify(body.issues?.map((i) => i.path))}`)
  }
})

t.test('a neighbour\'s status reads and /ready answer 200 during a burst of malformed requests', async (t) => {
  const app = await build(t)
  const { workflowId } = await start(t, app, 'hello', { name: 'Ada' })
  const neighbour = async () => [
    (await app.inject({ method: 'GET', url: `/workflow/${workflowId}/status` })).statusCode,
    (await app.inject({ method: 'GET', url: '/ready' })).statusCode
  ]
  t.same(await neighbour(), [200, 200], 'before')

  const burst = { on: true }
  const seen: number[] = []
  const reads = (async () => { while (burst.on) seen.push(...await neighbour()) })()
  const answers: number[] = []
  for (let round = 0; round < 3; round++) answers.push(...await Promise.all(all.map(async (r) => (await send(app, r)).statusCode)))
  burst.on = false
  await reads
  t.same([...new Set(answers)], [400], 'every malformed request is a 400')
  t.same([...new Set(seen)], [200], `the neighbour's ${seen.length} reads during the burst`)
  t.same(await neighbour(), [200, 200], 'and right after it')
})

t.test('a query the engine\'s store cannot run fails that request alone: a 400, and the breaker stays closed', async (t) => {
  const app = await build(t)
  const { workflowId } = await start(t, app, 'hello', { name: 'Ada' })
  const { engine } = app
  // Past the schemas, as a query built with a NUL would reach it: the store answers UNAVAILABLE.
  const failed = await engine.call(() => engine.client.workflowService.countWorkflowExecutions({
    namespace: engine.namespace, query: 'TaskQueue = "a\u0000b"'
  })).then(() => undefined, (err: unknown) => err as { statusCode?: number, error?: string })
  t.match(failed, { statusCode: 400, error: 'ValidationError' }, 'the request is answered as the client\'s mistake')
  t.equal((await app.inject({ method: 'GET', url: `/workflow/${workflowId}/status` })).statusCode, 200, 'another client\'s read is served')
  t.equal((await app.inject({ method: 'GET', url: '/ready' })).statusCode, 200, 'and the API is ready')
})
