import t from 'tap'
import { loadConfig } from '../plugins/external/config/index.js'
import { ConfigError } from '../lib/config-error.js'

t.test('defaults match docs/settings.md', async (t) => {
  const config = loadConfig({})
  t.equal(config.PORT, 3001)
  t.equal(config.HOST, '0.0.0.0')
  t.equal(config.SERVICE_CATALOG_ID, 'main')
  t.equal(config.SERVICE_RUN_TIMEOUT_MS, 300_000)
  t.equal(config.SERVICE_BODY_LIMIT_BYTES, 2 * 1024 * 1024)
  t.equal(config.TEMPORAL_NAMESPACE, 'default')
})

t.test('strings are converted to the declared types', async (t) => {
  const config = loadConfig({ PORT: '4000', SERVICE_API_AUTH_DISABLED: 'true', SERVICE_RUN_TIMEOUT_MS: '1000' })
  t.equal(config.PORT, 4000)
  t.equal(config.SERVICE_API_AUTH_DISABLED, true)
  t.equal(config.SERVICE_RUN_TIMEOUT_MS, 1000)
})

t.test('a bad value names the variable', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT="abc"/],
    [{ PORT: '70000' }, /PORT/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ SERVICE_RUN_TIMEOUT_MS: '0' }, /SERVICE_RUN_TIMEOUT_MS/],
    [{ SERVICE_RUN_TIMEOUT_MS: '5000', SERVICE_RUN_MAX_TIMEOUT_MS: '1000' }, /SERVICE_RUN_TIMEOUT_MS/]
  ]
  for (const [env, message] of cases) t.throws(() => loadConfig(env), { name: 'ConfigError', message }, JSON.stringify(env))
})

t.test('production refuses to start without a token unless auth is explicitly disabled', async (t) => {
  t.throws(() => loadConfig({ NODE_ENV: 'production' }), ConfigError)
  t.throws(() => loadConfig({ NODE_ENV: 'production' }), { message: /SERVICE_API_AUTH_TOKEN/ })
  t.equal(loadConfig({ NODE_ENV: 'production', SERVICE_API_AUTH_TOKEN: 's3cret-s3cret-s3cret' }).SERVICE_API_AUTH_TOKEN, 's3cret-s3cret-s3cret')
  t.equal(loadConfig({ NODE_ENV: 'production', SERVICE_API_AUTH_DISABLED: 'true' }).SERVICE_API_AUTH_DISABLED, true)
})

t.test('production is recognised in any case and with stray spaces', async (t) => {
  for (const nodeEnv of ['production', 'Production', 'PRODUCTION', ' production ', 'pRoDuCtIoN\n']) {
    t.throws(() => loadConfig({ NODE_ENV: nodeEnv }), { name: 'ConfigError', message: /^Missing setting SERVICE_API_AUTH_TOKEN/ }, JSON.stringify(nodeEnv))
  }
  for (const nodeEnv of ['development', 'test', 'productionish']) {
    t.equal(loadConfig({ NODE_ENV: nodeEnv }).SERVICE_API_AUTH_TOKEN, undefined, `${nodeEnv}: no token needed`)
  }
})

t.test('auth fails closed: bad tokens refuse to start with one line that never repeats the token', async (t) => {
  const production = { NODE_ENV: 'Production' }
  const refused: Array<[Record<string, string>, RegExp]> = [
    [{ ...production, SERVICE_API_AUTH_TOKEN: '' }, /empty or only whitespace/],
    [{ ...production, SERVICE_API_AUTH_TOKEN: ' ' }, /empty or only whitespace/],
    [{ ...production, SERVICE_API_AUTH_TOKEN: '\t \n' }, /empty or only whitespace/],
    [{ ...production, SERVICE_API_AUTH_TOKEN: '', SERVICE_API_AUTH_DISABLED: 'true' }, /empty or only whitespace/],
    [{ ...production, SERVICE_API_AUTH_TOKEN: 'short-secret' }, /at least 16 characters in production \(it has 12\)/],
    [{ ...production, SERVICE_API_AUTH_TOKEN: ' sixteen-chars-token ' }, /must not contain whitespace/],
    [{ SERVICE_API_AUTH_TOKEN: 'a b' }, /must not contain whitespace/],
    [{ SERVICE_API_AUTH_TOKEN: ' ' }, /must not contain whitespace/],
    [{ SERVICE_API_AUTH_TOKEN: 'dev-token', SERVICE_API_AUTH_DISABLED: 'true' }, /contradicts/],
    [{ ...production, SERVICE_API_AUTH_TOKEN: 'a-long-enough-token-1234', SERVICE_API_AUTH_DISABLED: 'true' }, /contradicts/]
  ]
  for (const [env, message] of refused) {
    const err = (() => { try { loadConfig(env); return undefined } catch (e) { return e as Error } })()
    t.type(err, ConfigError, JSON.stringify(env))
    t.match(err?.message, message)
    t.notMatch(err?.message, /\n/, 'one line')
    const token = env.SERVICE_API_AUTH_TOKEN?.trim()
    if (token) t.notOk(err?.message.includes(token), 'the message does not repeat the token')
  }
  t.equal(loadConfig({ ...production, SERVICE_API_AUTH_TOKEN: 'exactly-16-chars' }).SERVICE_API_AUTH_TOKEN, 'exactly-16-chars', 'the minimum length is accepted')
  t.equal(loadConfig({ SERVICE_API_AUTH_TOKEN: 'dev' }).SERVICE_API_AUTH_TOKEN, 'dev', 'outside production a short token is allowed')
  t.equal(loadConfig({ SERVICE_API_AUTH_TOKEN: '' }).SERVICE_API_AUTH_TOKEN, undefined, 'outside production an empty token means none')
})

t.test('SERVICE_RATE_LIMIT_REDIS_URL: unset by default; a redis:// or rediss:// URL; a bad one refused without repeating it', async (t) => {
  t.equal(loadConfig({}).SERVICE_RATE_LIMIT_REDIS_URL, undefined, 'per-replica counting is the default')
  t.equal(loadConfig({ SERVICE_RATE_LIMIT_REDIS_URL: 'redis://127.0.0.1:6379/2' }).SERVICE_RATE_LIMIT_REDIS_URL, 'redis://127.0.0.1:6379/2')
  t.equal(loadConfig({ SERVICE_RATE_LIMIT_REDIS_URL: 'rediss://:pw@redis.internal:6380' }).SERVICE_RATE_LIMIT_REDIS_URL, 'rediss://:pw@redis.internal:6380')
  const refused: Array<[string, RegExp]> = [
    ['//user:s3cret@redis.internal:6379', /not a URL/],
    ['http://user:s3cret@redis.internal:6379', /scheme must be redis: or rediss:, not http:/]
  ]
  for (const [url, message] of refused) {
    const err = (() => { try { loadConfig({ SERVICE_RATE_LIMIT_REDIS_URL: url }); return undefined } catch (e) { return e as Error } })()
    t.type(err, ConfigError, url)
    t.match(err?.message, /^Invalid setting SERVICE_RATE_LIMIT_REDIS_URL: /)
    t.match(err?.message, message)
    t.notOk(err?.message.includes('s3cret'), 'the message does not repeat the URL (it may hold a password)')
  }
})
