/**
 * The shared rate-limit store (SERVICE_RATE_LIMIT_REDIS_URL) against a real redis-server: two
 * replicas count one key in one budget, with the same 429, Retry-After and RateLimit headers as
 * the in-memory store; a Redis that goes away (or is not there at start) lets requests through
 * uncounted, with a warning in the log, never a 500; one that hangs opens a breaker, so requests
 * stop waiting for its command timeout.
 */
import t, { type Test } from 'tap'
import { PassThrough } from 'node:stream'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { freePort } from '../cli/engine.js'
import { build, traceEnv } from './helpers/app.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { bearer, keysFile } from './helpers/keys.js'
import { assertContract } from './helpers/contract.js'
import { startRedisServer as startRedis } from '../cli/cluster/redis.js'
import { parseMetrics, total } from './helpers/prometheus.js'
import { eventually } from './helpers/workflows.js'

type App = Awaited<ReturnType<typeof build>>

/** A Redis of the test's own, stopped at teardown; `port`: where a stopped one was. */
async function startRedisServer (t: Test, port?: number) {
  const redis = await startRedis({ port })
  t.teardown(redis.stop)
  return redis
}
const catalog = async (app: App, key: string) => await app.inject({ method: 'GET', url: '/workflow/catalog', headers: bearer(key) })

t.test('two replicas with one Redis share each key\'s budget', async (t) => {
  const redis = await startRedisServer(t)
  const { keys, file } = keysFile(t, [{ id: 'shared', scopes: ['read'], rateLimit: 4 }, { id: 'other', scopes: ['read'], rateLimit: 4 }])
  const env = { SERVICE_API_KEYS_FILE: file, SERVICE_RATE_LIMIT_REDIS_URL: redis.url, SERVICE_RATE_LIMIT_WINDOW_MS: '60000' }
  const replicas = [await build(t, env), await build(t, env)]

  // Alternating: each replica sees 2 requests, under its limit of 4 were it counting alone.
  for (let i = 0; i < 4; i++) {
    const res = await catalog(replicas[i % 2]!, keys.shared!)
    t.equal(res.statusCode, 200, `request ${i + 1} (replica ${i % 2 + 1})`)
    t.equal(res.headers['ratelimit-limit'], '4')
    t.equal(res.headers['ratelimit-remaining'], String(3 - i), 'the remaining budget counts both replicas\' requests')
    t.ok(Number(res.headers['ratelimit-reset']) > 0, `RateLimit-Reset: ${res.headers['ratelimit-reset']}`)
  }
  for (const [i, replica] of replicas.entries()) {
    const over = await catalog(replica, keys.shared!)
    t.equal(over.statusCode, 429, `replica ${i + 1} refuses the key after 2 requests of its own: the count is cluster-wide`)
    t.match(over.json(), { error: 'RateLimitedError', message: /^Rate limit exceeded: 4 requests per 60 s for this key; retry in/ })
    t.ok(Number(over.headers['retry-after']) > 0 && Number(over.headers['retry-after']) <= 60, `Retry-After: ${over.headers['retry-after']}`)
    t.equal(over.headers['ratelimit-limit'], '4')
    t.equal(over.headers['ratelimit-remaining'], '0')
    t.ok(over.headers['ratelimit-reset'])
    assertContract(t, 'GET', '/workflow/catalog', over)
  }
  const other = await catalog(replicas[1]!, keys.other!)
  t.equal(other.statusCode, 200, 'another key keeps its own budget')
  t.equal(other.headers['ratelimit-remaining'], '3')
  t.equal((await replicas[0]!.inject({ method: 'GET', url: '/health' })).statusCode, 200, 'open routes are not counted')
})

/** An app whose JSON log lines are collected (the warning about Redis is part of the behaviour). */
async function buildLogged (t: Test, env: Record<string, string>) {
  const stream = new PassThrough()
  const lines: Array<{ level: number, msg: string, redis?: string }> = []
  stream.on('data', (chunk: Buffer) => { for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l)) })
  const app = await buildApp({
    config: loadConfig({ ...traceEnv(), TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: testCatalog(), LOG_LEVEL: 'info', ...env }),
    logStream: stream
  })
  t.teardown(() => app.close())
  const warnings = () => lines.filter((l) => l.level === 40 && l.msg.startsWith('Rate-limit Redis unreachable'))
  const recoveries = () => lines.filter((l) => l.level === 30 && l.msg.startsWith('Rate-limit Redis reachable again'))
  return { app, lines, warnings, recoveries }
}

t.test('Redis going away: requests pass uncounted (fail open, logged), never a 500; counted again once it is back', async (t) => {
  const redis = await startRedisServer(t)
  const { keys, file } = keysFile(t, [{ id: 'tight', scopes: ['read'], rateLimit: 2 }])
  const { app, warnings, recoveries } = await buildLogged(t, { SERVICE_API_KEYS_FILE: file, SERVICE_RATE_LIMIT_REDIS_URL: redis.url })

  for (let i = 0; i < 2; i++) t.equal((await catalog(app, keys.tight!)).statusCode, 200)
  t.equal((await catalog(app, keys.tight!)).statusCode, 429, 'with Redis up the budget holds')
  t.equal(warnings().length, 0, 'no warning while Redis is up')

  await redis.stop()
  t.equal((await catalog(app, keys.tight!)).statusCode, 200, 'right after Redis went: served, not counted (and not a 500)')
  // The client notices the closed connection asynchronously; wait for its warning (bounded, not timed).
  for (let i = 0; i < 100 && warnings().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
  for (let i = 0; i < 5; i++) {
    const res = await catalog(app, keys.tight!)
    t.equal(res.statusCode, 200, `request ${i + 1} with Redis gone: served, not counted (and not a 500)`)
    t.notOk(res.headers['retry-after'])
    t.equal(res.headers['ratelimit-remaining'], '2', 'uncounted: the whole budget shows')
    t.equal(res.headers['ratelimit-reset'], '0')
  }
  t.equal(warnings().length, 1, 'one warning for the outage, not one per request')
  t.equal(warnings()[0]?.redis, `127.0.0.1:${redis.port}`, 'the warning names where Redis was expected')

  // Back on the same address (empty: no persistence): the client reconnects by itself.
  await startRedisServer(t, redis.port)
  for (let i = 0; i < 100 && recoveries().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(recoveries().length, 1, 'the log says when Redis is back')
  for (let i = 0; i < 2; i++) t.equal((await catalog(app, keys.tight!)).statusCode, 200)
  t.equal((await catalog(app, keys.tight!)).statusCode, 429, 'counted again: the budget holds')
})

t.test('a replica started while its Redis is unreachable starts and serves, uncounted', async (t) => {
  const nothingThere = await freePort()
  const { keys, file } = keysFile(t, [{ id: 'tight', scopes: ['read'], rateLimit: 1 }])
  const { app, lines, warnings } = await buildLogged(t, { SERVICE_API_KEYS_FILE: file, SERVICE_RATE_LIMIT_REDIS_URL: `redis://:pw-not-logged@127.0.0.1:${nothingThere}` })
  for (let i = 0; i < 3; i++) t.equal((await catalog(app, keys.tight!)).statusCode, 200, `request ${i + 1}: served`)
  t.equal(warnings().length, 1, 'the start logs that Redis is unreachable')
  t.equal(warnings()[0]?.redis, `127.0.0.1:${nothingThere}`)
  t.notOk(JSON.stringify(lines).includes('pw-not-logged'), 'the URL\'s password is never logged')
})

t.test('a Redis that accepts and never answers (SIGSTOP): after a few timed-out commands a breaker opens and requests pass uncounted without asking it (fail open, logged once); counted again once it answers', async (t) => {
  const redis = await startRedisServer(t)
  t.teardown(() => { redis.process.kill('SIGCONT') })
  const { keys, file } = keysFile(t, [{ id: 'tight', scopes: ['read'], rateLimit: 20 }])
  const { app, warnings, recoveries } = await buildLogged(t, { SERVICE_API_KEYS_FILE: file, SERVICE_RATE_LIMIT_REDIS_URL: redis.url })
  const breakerOpen = async () => total(parseMetrics((await app.inject({ method: 'GET', url: '/metrics', headers: bearer(keys.tight!) })).body), 'flowport_rate_limit_redis_breaker_open')

  t.equal((await catalog(app, keys.tight!)).headers['ratelimit-remaining'], '19', 'counted while Redis answers')
  redis.process.kill('SIGSTOP')
  for (let i = 0; i < 6; i++) {
    const res = await catalog(app, keys.tight!)
    t.equal(res.statusCode, 200, `request ${i + 1} with Redis stopped: served, uncounted (and not a 500)`)
    t.equal(res.headers['ratelimit-remaining'], '20', 'uncounted: the whole budget shows')
  }
  t.equal(await breakerOpen(), 1, 'the breaker is open: Redis is not asked, so a request does not wait for its command timeout')
  t.equal(warnings().length, 1, 'one warning for the outage')
  t.match(warnings()[0], { reason: /commands in a row failed/ })

  redis.process.kill('SIGCONT')
  // (The commands that timed out still reach Redis once it runs again, and count: what was sent was sent.)
  // The next trial after the open period finds Redis answering (bounded wait, not timed).
  const counted = await eventually(async () => await catalog(app, keys.tight!), (res) => res.headers['ratelimit-remaining'] !== '20', 200)
  t.equal(counted.statusCode, 200)
  t.equal(await breakerOpen(), 0, 'closed again')
  t.equal(recoveries().length, 1, 'the log says when Redis answers again')
})
