import t from 'tap'
import { connect } from 'node:net'
import { Type } from '@sinclair/typebox'
import { build } from './helpers/app.js'
import { assertContract } from './helpers/contract.js'
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

t.test('a text/plain body is the 415 the document promises, not a 400 from the schema', async (t) => {
  const app = await withEchoRoute(t)
  for (const url of ['/test/echo', '/workflow/start']) {
    const res = await app.inject({ method: 'POST', url, headers: { 'content-type': 'text/plain' }, payload: '{"name":"x","count":1}' })
    t.equal(res.statusCode, 415, url)
    t.same(res.json(), { error: 'UnsupportedMediaTypeError', message: 'Unsupported Media Type' }, `${url}: the documented error shape`)
  }
  const doc = app.swagger() as any
  t.same(doc.paths['/workflow/start'].post.responses['415'].content['application/json'].schema, { $ref: '#/components/schemas/ErrorResponse' }, 'declared')
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

t.test('a method the path does not have is a 405 with Allow, whatever its body; an unknown path stays 404', async (t) => {
  const app = await build(t)
  const trace = await app.inject({ method: 'TRACE', url: '/health' })
  t.equal(trace.statusCode, 405)
  t.equal(trace.headers.allow, 'GET, HEAD')
  t.same(trace.json(), { error: 'MethodNotAllowedError', message: 'Method TRACE is not allowed on /health (allowed: GET, HEAD)' })
  // QUERY has a body: Fastify would refuse the missing Content-Type (400) before any 404 handler.
  const query = await app.inject({ method: 'QUERY', url: '/workflow/some-id/status' })
  t.equal(query.statusCode, 405)
  t.equal(query.headers.allow, 'GET, HEAD')
  const get = await app.inject({ method: 'GET', url: '/workflow/start' })
  t.equal(get.statusCode, 405)
  t.equal(get.headers.allow, 'POST')
  const unknown = await app.inject({ method: 'TRACE', url: '/workflow/some-id/nothing' })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error, 'RouteNotFoundError')
})

t.test('a path that is not valid percent-encoded UTF-8 is a 400 ValidationError in the API shape', async (t) => {
  const app = await build(t)
  for (const url of ['/workflow/%ED%B0%80/status', '/workflow/%ZZ/status']) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 400, url)
    t.same(res.json(), { error: 'ValidationError', message: 'Invalid Payload', issues: [{ path: '/', in: 'params', message: 'The path is not valid percent-encoded UTF-8' }] })
    assertContract(t, 'GET', '/workflow/{id}/status', res)
  }
})

t.test('a path parameter far above its maxLength is still the schema\'s 400, not the router\'s 414', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: `/workflow/${'x'.repeat(5000)}/status` })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { error: 'ValidationError', issues: [{ in: 'params', path: '/id' }] })
})

t.test('a JSON string with a lone surrogate is a 400 naming where it is (the engine cannot take it: 500 before)', async (t) => {
  const app = await withEchoRoute(t)
  const res = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"name":"a\\udc00","count":1}' })
  t.equal(res.statusCode, 400)
  t.same(res.json().issues, [{ path: '/name', in: 'body', message: 'must be well-formed Unicode (it contains a lone surrogate)' }])
  const pair = await app.inject({ method: 'POST', url: '/test/echo', headers: { 'content-type': 'application/json' }, payload: '{"name":"\\ud83d\\ude00","count":1}' })
  t.equal(pair.statusCode, 200, 'an escaped surrogate pair is one character')
  t.equal(pair.json().name, '😀')
})

t.test('the longest URL the document allows is served; a larger header section is a 431 in the API shape', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  // Two 1000-character parameters of 4-byte characters: 24 KB percent-encoded, above Node's default 16 KiB.
  const longest = encodeURIComponent('\u{10FFFF}'.repeat(1000))
  const served = await rawRequest(port, `POST /workflow/${longest}/update/${longest} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`)
  t.match(served.head, /^HTTP\/1\.1 (400|404) /, 'answered by the route (the name is not a catalog handler name), not by the parser')
  const tooLarge = await rawRequest(port, `GET /workflow/x/status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70 * 1024)}\r\nConnection: close\r\n\r\n`)
  t.match(tooLarge.head, /^HTTP\/1\.1 431 /)
  t.same(JSON.parse(tooLarge.body), { error: 'RequestHeaderFieldsTooLargeError', message: 'The request line and headers are larger than the limit' })
  assertContract(t, 'GET', '/workflow/{id}/status', { statusCode: 431, body: tooLarge.body })
})

/** One request over a plain socket, so the request line and headers reach Node's parser as written. */
async function rawRequest (port: number, request: string): Promise<{ head: string, body: string }> {
  const socket = connect(port, '127.0.0.1')
  // Not end(): a half-closed client would let the server drop the answer; `Connection: close` ends it.
  socket.write(request)
  let text = ''
  // The server closes as soon as it has answered a refused request, possibly before reading all of it.
  try {
    for await (const chunk of socket) text += chunk.toString()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET' && (err as NodeJS.ErrnoException).code !== 'EPIPE') throw err
  }
  const split = text.indexOf('\r\n\r\n')
  return { head: text.slice(0, split), body: text.slice(split + 4) }
}

t.test('a __proto__ key is refused with a 400 naming it (it said "Malformed JSON" of valid JSON)', async (t) => {
  const app = await build(t)
  app.post('/test/any', { schema: { body: Type.Object({ input: Type.Unknown() }), response: { 200: Type.Object({ ok: Type.Boolean() }), ...errorsFor(400) } } }, async () => ({ ok: true }))
  for (const [payload, path] of [['{"input":{"a":[{"__proto__":{"x":1}}]}}', '/input/a/0/__proto__'], ['{"input":{"constructor":{"prototype":{}}}}', '/input/constructor']]) {
    const res = await app.inject({ method: 'POST', url: '/test/any', headers: { 'content-type': 'application/json' }, payload })
    t.equal(res.statusCode, 400, payload)
    t.same(res.json().issues, [{ path, in: 'body', message: 'is refused: a __proto__ key, or a constructor holding a prototype, could poison prototypes' }])
  }
  const constructorValue = await app.inject({ method: 'POST', url: '/test/any', headers: { 'content-type': 'application/json' }, payload: '{"input":{"constructor":"fine"}}' })
  t.equal(constructorValue.statusCode, 200, 'a constructor key without a prototype is data like any other')
  const malformed = await app.inject({ method: 'POST', url: '/test/any', headers: { 'content-type': 'application/json' }, payload: '{"input":' })
  t.match(malformed.json().issues, [{ in: 'body', message: /Malformed JSON/ }])
})
