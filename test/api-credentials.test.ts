/**
 * `credential:<path>` in the API's settings and in the keys file, both ways: resolved from the
 * environment's encrypted credentials file (a bearer token, run-token secrets from a setting and
 * from the keys file, the webhook secret, with the worker's resolver), and a reference that cannot
 * be resolved stopping the start with one line naming the setting (never taken literally).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { credentialsLocation, generateKey, writeCredentials } from '@flowport/core/credentials'
import { buildApp, type App } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { hashKey, generateKey as generateApiKey } from '../plugins/app/access/keys.js'
import { build, traceEnv } from './helpers/app.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { bearer } from './helpers/keys.js'

const TOKEN = `api-token-${randomBytes(16).toString('hex')}`
const RUN_TOKEN_SECRET = `run-token-secret-${randomBytes(16).toString('hex')}`
const FILE_SECRET = `file-run-token-secret-${randomBytes(16).toString('hex')}`
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString('base64')}`

/** An encrypted credentials file of environment `staging` with the secrets above, and the settings that open it. */
function credentialsFile (t: Test): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'flowport-api-credentials-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const key = generateKey()
  const env = { NODE_ENV: 'staging', SERVICE_CREDENTIALS_FILE: join(dir, 'staging.yml.enc'), SERVICE_CREDENTIALS_KEY_STAGING: key }
  writeCredentials(credentialsLocation(env), Buffer.from(key, 'hex'),
    `api:\n  token: ${TOKEN}\n  run_token_secret: ${RUN_TOKEN_SECRET}\n  file_secret: ${FILE_SECRET}\n  webhook_secret: ${WEBHOOK_SECRET}\n`)
  return env
}

const catalogStatus = async (app: App, credential: string) =>
  (await app.inject({ method: 'GET', url: '/workflow/catalog', headers: bearer(credential) })).statusCode

/** A run token for workflow `any-id` (none runs): a 404 says the token was taken, a 401 that it was not. */
const tokenStatus = async (app: App, token: string) =>
  (await app.inject({ method: 'GET', url: '/workflow/any-id/status', headers: bearer(token) })).statusCode

async function issue (app: App, key: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/tokens', headers: bearer(key), payload: { workflowId: 'any-id', scopes: ['read'], ttl: 60 } })
  t.equal(res.statusCode, 200, res.body)
  return res.json().token
}

t.test('resolved: the token, the run-token secrets and the webhook secret are the credentials file\'s values', async (t) => {
  const opened = credentialsFile(t)
  const config = loadConfig({
    ...opened,
    SERVICE_API_AUTH_TOKEN: 'credential:api.token',
    SERVICE_RUN_TOKEN_SECRETS: 'credential:api.run_token_secret',
    SERVICE_WEBHOOK_SECRET: 'credential:api.webhook_secret'
  })
  t.equal(config.SERVICE_API_AUTH_TOKEN, TOKEN)
  t.equal(config.SERVICE_RUN_TOKEN_SECRETS, RUN_TOKEN_SECRET)
  t.equal(config.SERVICE_WEBHOOK_SECRET, WEBHOOK_SECRET)

  const app = await build(t, { ...opened, SERVICE_API_AUTH_TOKEN: 'credential:api.token', SERVICE_RUN_TOKEN_SECRETS: 'credential:api.run_token_secret' })
  t.equal(await catalogStatus(app, TOKEN), 200, 'the bearer token from the credentials file is accepted')
  t.equal(await catalogStatus(app, 'credential:api.token'), 401, 'the reference itself is no token')

  // A replica given the secret literally accepts the run tokens of the one that resolved it.
  const literal = await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN, SERVICE_RUN_TOKEN_SECRETS: RUN_TOKEN_SECRET })
  const token = await issue(app, TOKEN)
  t.equal(await tokenStatus(literal, token), 404, 'signed with the resolved secret')
  t.equal(await tokenStatus(await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN, SERVICE_RUN_TOKEN_SECRETS: FILE_SECRET }), token), 401, 'not with another')
})

t.test('resolved: the keys file\'s runTokenSecrets, read again with the file', async (t) => {
  const opened = credentialsFile(t)
  // The keys file is read by the process, with its own environment's credentials file.
  const saved = Object.fromEntries(Object.keys(opened).map((name) => [name, process.env[name]]))
  Object.assign(process.env, opened)
  t.teardown(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })
  const dir = mkdtempSync(join(tmpdir(), 'flowport-api-credentials-keys-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const key = generateApiKey()
  const keysFile = (name: string, secret: string): string => {
    writeFileSync(join(dir, name), JSON.stringify({ keys: [{ id: 'admin', hash: hashKey(key), scopes: ['read', 'admin'] }], runTokenSecrets: [secret] }))
    return join(dir, name)
  }
  const app = await build(t, { ...opened, SERVICE_API_KEYS_FILE: keysFile('keys.json', 'credential:api.file_secret') })
  // The same key, with the secret written out: it accepts what the first one signed.
  const literal = await build(t, { SERVICE_API_KEYS_FILE: keysFile('literal.json', FILE_SECRET) })
  const token = await issue(app, key)
  t.equal(await tokenStatus(literal, token), 404, 'signed with the secret the file refers to')
  const other = await build(t, { SERVICE_API_KEYS_FILE: keysFile('other.json', RUN_TOKEN_SECRET) })
  t.equal(await tokenStatus(other, token), 401, 'not with another')

  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ keys: [], runTokenSecrets: ['credential:api.nowhere'] }))
  await t.rejects(build(t, { ...opened, SERVICE_API_KEYS_FILE: join(dir, 'bad.json') }), {
    name: 'KeysFileError',
    message: `Invalid SERVICE_API_KEYS_FILE ${join(dir, 'bad.json')}: runTokenSecrets[0]=credential:api.nowhere: no value at api.nowhere in ${opened.SERVICE_CREDENTIALS_FILE}`
  })
})

t.test('unresolvable: the start stops with one line naming the setting', async (t) => {
  const opened = credentialsFile(t)
  const base = { ...traceEnv(), TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: testCatalog(), LOG_LEVEL: 'silent' }
  const cases: Array<[string, Record<string, string>, string]> = [
    ['a path with no value', { ...opened, SERVICE_API_AUTH_TOKEN: 'credential:api.nowhere' },
      `MissingCredentialError: SERVICE_API_AUTH_TOKEN=credential:api.nowhere: no value at api.nowhere in ${opened.SERVICE_CREDENTIALS_FILE}`],
    ['no key to open the file', { ...opened, SERVICE_CREDENTIALS_KEY_STAGING: '', SERVICE_WEBHOOK_SECRET: 'credential:api.webhook_secret' },
      `MissingCredentialError: SERVICE_WEBHOOK_SECRET=credential:api.webhook_secret: SERVICE_CREDENTIALS_KEY_STAGING is not set (it holds the key of ${opened.SERVICE_CREDENTIALS_FILE})`],
    ['a path that holds a mapping', { ...opened, SERVICE_RUN_TOKEN_SECRETS: 'credential:api' },
      'CredentialsError: SERVICE_RUN_TOKEN_SECRETS=credential:api: '],
    // The issue's case: a 20-character reference that passed the production length check.
    ['no credentials file, in production', { NODE_ENV: 'production', SERVICE_CREDENTIALS_FILE: join(tmpdir(), 'nowhere.yml.enc'), SERVICE_API_AUTH_TOKEN: 'credential:api.token' },
      `MissingCredentialError: SERVICE_API_AUTH_TOKEN=credential:api.token: no credentials file at ${join(tmpdir(), 'nowhere.yml.enc')}`]
  ]
  // A resolved value its setting's schema refuses: named by its reference, not shown.
  cases.push(['a resolved value the schema refuses', { ...opened, PORT: 'credential:api.token' }, 'Invalid setting PORT="credential:api.token": '])
  for (const [what, env, message] of cases) {
    let thrown: Error | undefined
    try {
      await buildApp({ config: loadConfig({ ...base, ...env }) })
    } catch (err) {
      thrown = err as Error
    }
    t.equal(thrown?.name, 'ConfigError', what)
    t.ok(thrown?.message.startsWith(message), `${what}: ${thrown?.message}`)
    t.notOk(thrown?.message.includes('\n'), `${what}: one line`)
    t.notOk(thrown?.message.includes(TOKEN), `${what}: no secret in it`)
  }
})
