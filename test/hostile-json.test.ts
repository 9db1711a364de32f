/**
 * Hostile JSON bodies never answer 500: nesting beyond SERVICE_JSON_MAX_DEPTH, lone surrogates and
 * prototype-poisoning keys are 400 ValidationErrors naming where they are, at every depth and
 * position, on every operation of the OpenAPI document that takes a body. Cases are generated.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { Type } from '@sinclair/typebox'
import { build } from './helpers/app.js'
import { errorsFor } from '../schemas/common.js'

const document = JSON.parse(readFileSync(new URL('../openapi/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { requestBody?: unknown }>>
}
const RUN_ID = '00000000-0000-4000-8000-000000000000'
/** Every operation that takes a JSON body, with its path parameters filled in. */
const bodyOperations = Object.entries(document.paths).flatMap(([path, operations]) =>
  Object.entries(operations).filter(([, op]) => op.requestBody !== undefined)
    .map(([method, op]) => ({ method: method.toUpperCase() as 'POST' | 'PATCH', url: path.replace('{rid}', RUN_ID).replace(/\{\w+\}/g, 'hostile') })))

type Shape = 'object' | 'array'
/** JSON text with `levels` containers (`{"k":…}` or `[…]`) around `inner`. */
const nested = (shape: Shape, levels: number, inner: string) =>
  shape === 'object' ? '{"k":'.repeat(levels) + inner + '}'.repeat(levels) : '['.repeat(levels) + inner + ']'.repeat(levels)
/** The JSON pointer of the value inside `levels` containers. */
const pointerAt = (shape: Shape, levels: number) => '/k'.repeat(shape === 'object' ? levels : 0) + '/0'.repeat(shape === 'array' ? levels : 0)

const deepMessage = (max: number) => `must not nest arrays and objects more than ${max} levels deep`
const surrogateMessage = 'must be well-formed Unicode (it contains a lone surrogate)'
const prototypeMessage = 'is refused: a __proto__ key, or a constructor holding a prototype, could poison prototypes'

/** The bad things that can sit at the bottom of a body, as JSON text, with the pointer suffix each is reported at. */
const payloads = [
  { name: 'lone surrogate in a string', json: '"\\udc00"', at: '', message: surrogateMessage },
  { name: 'lone surrogate in a key', json: '{"\\ud800x":1}', at: '/\ud800x', message: surrogateMessage },
  { name: '__proto__ key', json: '{"__proto__":{"polluted":true}}', at: '/__proto__', message: prototypeMessage },
  { name: 'escaped __proto__ key', json: '{"\\u005f_proto__":{"polluted":true}}', at: '/__proto__', message: prototypeMessage },
  { name: 'constructor holding a prototype', json: '{"constructor":{"prototype":{"polluted":true}}}', at: '/constructor', message: prototypeMessage }
]

async function withAnyRoute (t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  const app = await build(t, env)
  // A route of the test only: takes any JSON, so what is checked is the parser alone.
  app.post('/test/any', { schema: { body: Type.Unknown(), response: { 200: Type.Object({ ok: Type.Boolean() }), ...errorsFor(400) } } }, async () => ({ ok: true }))
  return app
}

const post = (app: Awaited<ReturnType<typeof build>>, payload: string, url = '/test/any', method: 'POST' | 'PATCH' = 'POST') =>
  app.inject({ method, url, headers: { 'content-type': 'application/json' }, payload })

t.test('nesting up to the limit is accepted; one level more is a 400, for arrays and objects', async (t) => {
  for (const max of [1, 8, 64]) {
    const app = await withAnyRoute(t, max === 64 ? {} : { SERVICE_JSON_MAX_DEPTH: String(max) })
    for (const shape of ['object', 'array'] as const) {
      for (const levels of [1, max - 1, max, max + 1, max + 2, 10 * max].filter((l) => l >= 1)) {
        const res = await post(app, nested(shape, levels, '1'))
        if (levels <= max) {
          t.equal(res.statusCode, 200, `limit ${max}: ${levels} ${shape} levels pass`)
        } else {
          t.equal(res.statusCode, 400, `limit ${max}: ${levels} ${shape} levels refused`)
          t.same(res.json().issues, [{ path: '/', in: 'body', message: deepMessage(max) }])
        }
      }
    }
  }
})

t.test('brackets inside strings do not count as nesting', async (t) => {
  const app = await withAnyRoute(t, { SERVICE_JSON_MAX_DEPTH: '2' })
  for (const text of ['"[[[[{{{{"', '{"a":"[[[[\\"{{{{"}', '["\\\\",["]]]]["]]', '{"[[[[":{"{{{{":1}}']) {
    const res = await post(app, text)
    t.equal(res.statusCode, 200, text)
  }
})

t.test('a lone surrogate or a prototype key at any depth below the limit is a 400 naming its place', async (t) => {
  const max = 64
  const app = await withAnyRoute(t)
  for (const payload of payloads) {
    for (const shape of ['object', 'array'] as const) {
      // Every depth at which the payload (itself up to 2 levels) still fits under the limit.
      const payloadLevels = payload.json.split('{').length - 1
      for (let levels = 0; levels + payloadLevels <= max; levels++) {
        const res = await post(app, nested(shape, levels, payload.json))
        const path = pointerAt(shape, levels) + payload.at
        if (res.statusCode !== 400 || res.json().issues?.[0]?.path !== (path || '/')) {
          t.fail(`${payload.name} under ${levels} ${shape} levels: ${res.statusCode} ${res.body}`)
          continue
        }
        t.same(res.json().issues, [{ path: path || '/', in: 'body', message: payload.message }])
      }
    }
  }
  t.end()
})

t.test('at the bottom of 1,000 to 100,000 levels, on every operation that takes a body: 400, never 500', async (t) => {
  const app = await build(t)
  t.ok(bodyOperations.length >= 5, `${bodyOperations.length} operations take a body`)
  for (const { method, url } of bodyOperations) {
    for (const levels of [1_000, 10_000, 100_000]) {
      for (const payload of payloads) {
        for (const shape of ['object', 'array'] as const) {
          const res = await post(app, nested(shape, levels, payload.json), url, method)
          if (res.statusCode !== 400) t.fail(`${method} ${url}: ${payload.name} under ${levels} ${shape} levels: ${res.statusCode} ${res.body.slice(0, 200)}`)
          else t.same(res.json().issues, [{ path: '/', in: 'body', message: deepMessage(64) }], `${method} ${url} ${levels} ${shape} ${payload.name}`)
        }
      }
    }
  }
})

t.test('a body at the limit reaches the route and the engine: no 500 from the depth it has', async (t) => {
  const app = await build(t)
  // 64 levels in all: the body object, `input` and 62 more.
  const res = await post(app, `{"workflowName":"no-such-workflow","input":${nested('array', 62, '"x"')}}`, '/workflow/start')
  t.equal(res.statusCode, 404, 'the catalog lookup answers (the workflow is unknown)')
  t.equal(res.json().error, 'WorkflowNotFoundError')
  const start = await post(app, `{"workflowName":"hello","input":{"name":"Ada","extra":${nested('object', 60, '"x"')}}}`, '/workflow/start')
  t.not(start.statusCode, 500, `a real start with a 64-level input: ${start.statusCode}`)
})
