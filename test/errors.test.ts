import t from 'tap'
import { Type } from '@sinclair/typebox'
import { build } from './helpers/app.js'
import { errorsFor } from '../schemas/common.js'

async function withEchoRoute (t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  const app = await build(t, env)
  // A route of the test only: the foundation has no body route yet, the error shapes are global.
  app.post('/test/echo', {
    schema: {
      body: Type.Object({ name: Type.String({ minLength: 1 }), count: Type.Integer({ maximum: 10 }) }, { additionalProperties: false }),
      response: { 200: Type.Object({ name: Type.String() }), ...errorsFor(400, 413, 415) }
    }
  }, async (request) => ({ name: request.body.name }))
  app.get('/test/boom', async () => { throw new Error('secret internal detail') })
  return app
}

t.test('schema violations list every issue with a JSON pointer', async (t) => {
  const app = await withEchoRoute(t)
  const res = await app.inject({ method: 'POST', url: '/test/echo', payload: { count: 99, extra: true } })
  t.equal(res.statusCode, 400)
  const body = res.json()
  t.equal(body.error, 'ValidationError')
  t.equal(body.message, 'Invalid Payload')
  const paths = body.issues.map((i: { path: string }) => i.path).sort()
  t.same(paths, ['/count', '/extra', '/name'], 'allErrors on; the extra field is rejected, not stripped')
  t.ok(body.issues.every((i: { in: string }) => i.in === 'body'))
})

t.test('malformed JSON is a 400 ValidationError', async (t) => {
  const app = await withEchoRoute(t)
  const res = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"name": ' })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { error: 'ValidationError', message: 'Invalid Payload', issues: [{ in: 'body', message: /Malformed JSON/ }] })
})

t.test('a body over the limit is a 413 JSON error', async (t) => {
  const app = await withEchoRoute(t, { SERVICE_BODY_LIMIT_BYTES: '2048' })
  const res = await app.inject({ method: 'POST', url: '/test/echo', payload: { name: 'x'.repeat(5000), count: 1 } })
  t.equal(res.statusCode, 413)
  t.same(res.json(), { error: 'PayloadTooLargeError', message: 'Request body is larger than the limit' })
})

t.test('an unsupported content type is a 415 JSON error', async (t) => {
  const app = await withEchoRoute(t)
  const res = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/xml' }, payload: '<a/>' })
  t.equal(res.statusCode, 415)
  t.equal(res.json().error, 'UnsupportedMediaTypeError')
})

t.test('an unknown route is a 404 JSON error', async (t) => {
  const app = await withEchoRoute(t)
  const res = await app.inject({ method: 'GET', url: '/nowhere?x=1' })
  t.equal(res.statusCode, 404)
  t.same(res.json(), { error: 'RouteNotFoundError', message: 'Route GET /nowhere not found' })
})

t.test('an unexpected failure is a 500 without internals, carrying the request id', async (t) => {
  const app = await withEchoRoute(t)
  const res = await app.inject({ method: 'GET', url: '/test/boom', headers: { 'x-request-id': 'req-42' } })
  t.equal(res.statusCode, 500)
  t.equal(res.headers['x-request-id'], 'req-42')
  t.same(res.json(), { error: 'InternalServerError', message: 'Internal server error (request req-42)' })
  t.notMatch(res.body, /secret internal detail/)
})

t.test('an unreachable engine is a 503 EngineUnavailableError with Retry-After', async (t) => {
  const app = await build(t, { TEMPORAL_ADDRESS: '127.0.0.1:1', SERVICE_ENGINE_CALL_TIMEOUT_MS: '3000' })
  const res = await app.inject({ method: 'GET', url: '/workflow/catalog' })
  t.equal(res.statusCode, 503)
  t.equal(res.json().error, 'EngineUnavailableError')
  t.ok(Number(res.headers['retry-after']) > 0)
})

t.test('an over-long path parameter is a 400 ValidationError, not a router 414', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: `/workflow/catalog/${'x'.repeat(300)}` })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { error: 'ValidationError', issues: [{ in: 'params', path: '/catalogId' }] })
})

t.test('JSON bodies are not type-coerced; query strings are', async (t) => {
  const app = await withEchoRoute(t)
  const res = await app.inject({ method: 'POST', url: '/test/echo', payload: { name: 5, count: '3' } })
  t.equal(res.statusCode, 400)
  t.same(res.json().issues.map((i: { path: string }) => i.path).sort(), ['/count', '/name'])
  const ok = await app.inject({ method: 'POST', url: '/test/echo', payload: { name: 'five', count: 3 } })
  t.equal(ok.statusCode, 200)
})

t.test('an empty body with a JSON content type counts as no body', async (t) => {
  const app = await withEchoRoute(t)
  const res = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '' })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { error: 'ValidationError', issues: [{ in: 'body' }] }, 'a required body is still required')
})
