import t from 'tap'
import { ConfigError, loadConfig } from '../schemas/config.js'

t.test('defaults match the README', async (t) => {
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
  t.equal(loadConfig({ NODE_ENV: 'production', SERVICE_API_AUTH_TOKEN: 's3cret' }).SERVICE_API_AUTH_TOKEN, 's3cret')
  t.equal(loadConfig({ NODE_ENV: 'production', SERVICE_API_AUTH_DISABLED: 'true' }).SERVICE_API_AUTH_DISABLED, true)
})
