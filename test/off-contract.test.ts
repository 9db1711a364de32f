/**
 * Requests at the edges of the contract get documented JSON errors: numeric query values that
 * only JavaScript's number parsing would read, OPTIONS that is not a CORS preflight, and an
 * HTTP/1.1 request without Host.
 */
import t from 'tap'
import { connect } from 'node:net'
import { build } from './helpers/app.js'
import { call } from './helpers/workflows.js'

const NOT_A_PLAIN_INTEGER = ['Infinity', '-Infinity', 'NaN', '1e999', '-0', '1.5', '0x10', '0b1', '1e2', ' 10', '+5', '010', '']

t.test('pageSize must be a plain decimal integer in range: everything else is a 400 ValidationError', async (t) => {
  const app = await build(t)
  for (const value of [...NOT_A_PLAIN_INTEGER, '0', '1001']) {
    const url = `/workflow/runs?pageSize=${encodeURIComponent(value)}`
    const res = await call(t, app, { method: 'GET', url, route: '/workflow/runs' })
    t.equal(res.status, 400, `pageSize=${JSON.stringify(value)}`)
    t.match(res.body, { error: 'ValidationError', issues: [{ path: '/pageSize', in: 'querystring' }] })
    const history = await call(t, app, { method: 'GET', url: `/workflow/x/history?pageSize=${encodeURIComponent(value)}`, route: '/workflow/{id}/history' })
    t.equal(history.status, 400, `history pageSize=${JSON.stringify(value)}`)
  }
  const fine = await call(t, app, { method: 'GET', url: '/workflow/runs?pageSize=2', route: '/workflow/runs' })
  t.equal(fine.status, 200)
  t.ok(fine.body.runs.length <= 2, 'a page never holds more than pageSize runs')
})

t.test('OPTIONS without the preflight headers is a JSON 400 naming them; a real preflight is still answered', async (t) => {
  const app = await build(t)
  for (const url of ['/workflow/runs', '/no/such/path']) {
    const res = await app.inject({ method: 'OPTIONS', url })
    t.equal(res.statusCode, 400, url)
    t.match(res.headers['content-type'], /^application\/json/)
    t.match(res.json(), {
      error: 'ValidationError',
      issues: [{ path: '/origin', in: 'headers' }, { path: '/access-control-request-method', in: 'headers' }]
    })
  }
  const half = await app.inject({ method: 'OPTIONS', url: '/workflow/runs', headers: { origin: 'https://app.example' } })
  t.same(half.json().issues.map((i: { path: string }) => i.path), ['/access-control-request-method'])
  const preflight = await app.inject({
    method: 'OPTIONS', url: '/workflow/runs', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' }
  })
  t.equal(preflight.statusCode, 204)
  t.ok(preflight.headers['access-control-allow-methods'])
})

/** One request over a plain socket; resolves with what came back before the server's answer was complete. */
async function raw (port: number, request: string): Promise<string> {
  return await new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(request))
    let text = ''
    socket.on('data', (chunk) => { text += chunk.toString() })
    socket.on('error', reject)
    socket.on('close', () => resolve(text))
  })
}

t.test('an HTTP/1.1 request without Host is a JSON 400 (Node alone sends an empty one); HTTP/1.0 needs none', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  const answer = await raw(port, 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n')
  t.match(answer, /^HTTP\/1\.1 400 /)
  t.match(answer, /content-type: application\/json/i)
  const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
  t.same(body, { error: 'ValidationError', message: 'Invalid Payload', issues: [{ path: '/host', in: 'headers', message: 'is required in an HTTP/1.1 request' }] })
  const old = await raw(port, 'GET /health HTTP/1.0\r\n\r\n')
  t.match(old, /^HTTP\/1\.1 200 /)
})
