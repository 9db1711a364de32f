/**
 * Per-key request budgets: 429 RateLimitedError with Retry-After and the RateLimit-* headers, a
 * key's own limit over the default, keys counted apart, open routes never counted, a stream
 * counted once at connect.
 */
import t from 'tap'
import { build } from './helpers/app.js'
import { bearer, keysFile } from './helpers/keys.js'
import { engineClient, openSse, startIdle } from './helpers/history.js'
import { assertContract } from './helpers/contract.js'

t.test('each key spends its own budget; over it: 429 with Retry-After and RateLimit headers', async (t) => {
  const { keys, file } = keysFile(t, [{ id: 'tight', scopes: ['read'], rateLimit: 3 }, { id: 'ordinary', scopes: ['read'] }, { id: 'unlimited', scopes: ['read'], rateLimit: 0 }])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file, SERVICE_RATE_LIMIT_MAX: '5', SERVICE_RATE_LIMIT_WINDOW_MS: '60000' })
  const get = async (key: string, url = '/workflow/catalog') => await app.inject({ method: 'GET', url, headers: bearer(key) })

  for (let i = 0; i < 3; i++) {
    const res = await get(keys.tight!)
    t.equal(res.statusCode, 200)
    t.equal(res.headers['ratelimit-limit'], '3')
    t.equal(res.headers['ratelimit-remaining'], String(2 - i))
  }
  const over = await get(keys.tight!)
  t.equal(over.statusCode, 429)
  t.match(over.json(), { error: 'RateLimitedError', message: /^Rate limit exceeded: 3 requests per 60 s for this key; retry in/ })
  t.ok(Number(over.headers['retry-after']) > 0 && Number(over.headers['retry-after']) <= 60, `Retry-After: ${over.headers['retry-after']}`)
  t.equal(over.headers['ratelimit-remaining'], '0')
  t.ok(over.headers['ratelimit-reset'])
  assertContract(t, 'GET', '/workflow/catalog', over)
  t.equal((await get(keys.tight!, '/workflow/no-such/status')).statusCode, 429, 'the budget spans every route')

  for (let i = 0; i < 5; i++) t.equal((await get(keys.ordinary!)).statusCode, 200, 'another key: its own budget (the default)')
  t.equal((await get(keys.ordinary!)).statusCode, 429)
  for (let i = 0; i < 20; i++) t.equal((await get(keys.unlimited!)).statusCode, 200, 'rateLimit 0: unlimited')
  for (let i = 0; i < 20; i++) t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200, 'open routes are not counted')
})

t.test('a stream counts once, at connect, however long it stays open', async (t) => {
  const client = await engineClient(t)
  const handle = await startIdle(client)
  t.teardown(() => handle.terminate('test over'))
  const { keys, file } = keysFile(t, [{ id: 'viewer', scopes: ['read'], rateLimit: 2 }])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const stream = await openSse(`${base}/workflow/${handle.workflowId}/history/stream`, bearer(keys.viewer!))
  t.equal(stream.statusCode, 200)
  // The idle run gets signalled: the open stream delivers events without any new request being counted.
  for (let i = 0; i < 3; i++) await handle.signal('poke', i)
  await stream.until((frames) => frames.filter((f) => f.event === 'history' && f.data.includes('SIGNALED')).length > 0)
  const status = await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/status`, headers: bearer(keys.viewer!) })
  t.equal(status.statusCode, 200, 'the second request of the window is still within budget')
  t.equal(status.headers['ratelimit-remaining'], '0')
  t.equal((await app.inject({ method: 'GET', url: `/workflow/${handle.workflowId}/status`, headers: bearer(keys.viewer!) })).statusCode, 429, 'the third is not')
  stream.close()
})
