import t from 'tap'
import { build } from './helpers/app.js'

const TOKEN = 'test-token-123'

t.test('with a token configured, protected routes need it', async (t) => {
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN })

  const missing = await app.inject({ method: 'GET', url: '/workflow/catalog' })
  t.equal(missing.statusCode, 401)
  t.equal(missing.json().error, 'UnauthorizedError')
  t.match(missing.headers['www-authenticate'], /Bearer/)

  const wrong = await app.inject({ method: 'GET', url: '/workflow/catalog', headers: { authorization: 'Bearer nope' } })
  t.equal(wrong.statusCode, 401)
  t.same(wrong.json(), { error: 'UnauthorizedError', message: 'Invalid token' })

  for (const scheme of ['Basic', 'Bearer']) {
    const ok = await app.inject({ method: 'GET', url: '/workflow/catalog', headers: { authorization: `${scheme} ${TOKEN}` } })
    t.equal(ok.statusCode, 200, `${scheme} <token> is accepted`)
  }
})

t.test('a token in the query string is only accepted where a route allows it', async (t) => {
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN })
  const res = await app.inject({ method: 'GET', url: `/workflow/catalog?access_token=${TOKEN}` })
  t.equal(res.statusCode, 401)
})

t.test('health, readiness and the API description stay open', async (t) => {
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN })
  for (const url of ['/health', '/openapi.json', '/docs/']) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
  }
  const ready = await app.inject({ method: 'GET', url: '/ready' })
  t.not(ready.statusCode, 401)
})

t.test('CORS preflights are answered before auth, allowing PATCH and Last-Event-ID', async (t) => {
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN })
  const res = await app.inject({
    method: 'OPTIONS',
    url: '/workflow/abc/stop',
    headers: { origin: 'http://example.test', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,last-event-id' }
  })
  t.equal(res.statusCode, 204)
  t.match(res.headers['access-control-allow-methods'], /PATCH/)
  t.match(String(res.headers['access-control-allow-headers']).toLowerCase(), /last-event-id/)

  const denied = await app.inject({ method: 'GET', url: '/workflow/catalog', headers: { origin: 'http://example.test' } })
  t.equal(denied.statusCode, 401)
  t.equal(denied.headers['access-control-allow-origin'], '*', 'a 401 still carries CORS headers so browsers can read it')
})

t.test('without a token every route is open (development)', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/workflow/catalog' })
  t.equal(res.statusCode, 200)
})
