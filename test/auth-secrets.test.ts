/**
 * Credentials never reach the log, whatever the parameter name and however it is encoded, and only
 * `?access_token=` (decoded name and value, stream routes only) authenticates from the query: the
 * key itself there under the development switch SERVICE_API_QUERY_KEYS_ALLOWED (by default only run
 * tokens are accepted there: test/access-run-tokens.test.ts).
 * The same holds for the keys file's run-token secrets, those a reload adds included.
 * The log is captured from the app's own logger stream at trace level; cases are generated.
 */
import t, { type Test } from 'tap'
import { connect } from 'node:net'
import { buildApp } from '../app.js'
import { decodeFully } from '../lib/log-redaction.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { bearer, keysFile, type KeySpec } from './helpers/keys.js'
import { until } from './helpers/processes.js'

const TOKEN = 'Tok3n_with.special~chars-0123456789'

async function buildWithLog (t: Test, env: Record<string, string> = {}) {
  const lines: string[] = []
  const config = loadConfig({ TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: testCatalog(), SERVICE_API_AUTH_TOKEN: TOKEN, SERVICE_API_QUERY_KEYS_ALLOWED: 'true', LOG_LEVEL: 'trace', ...env })
  const app = await buildApp({ config, logger: { level: 'trace', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => app.close())
  return { app, log: () => lines.join('') }
}

/** Every character percent-encoded, in upper or lower case hex. */
const encodeAll = (text: string, lower = false) => [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0')}`).map((e) => (lower ? e : e.toUpperCase())).join('')
const encodings: Record<string, (s: string) => string> = {
  plain: (s) => s,
  component: encodeURIComponent,
  every: (s) => encodeAll(s),
  'every, lower-case': (s) => encodeAll(s, true),
  'underscore only': (s) => s.replace(/_/g, '%5F'),
  double: (s) => encodeAll(s).replace(/%/g, '%25')
}
const NAMES = ['access_token', 'token', 'api_key', 'apikey', 'authorization', 'key', 'secret', 'password', 'Access_Token', 'X-API-KEY', 'auth', 'something_else']

function assertNoSecret (t: Test, log: string, what: string, secret = TOKEN) {
  const found = log.includes(secret) || decodeFully(log).includes(secret) || log.toLowerCase().includes(encodeAll(secret, true)) ||
    decodeFully(log.replace(/\\u0025/g, '%')).includes(secret)
  t.notOk(found, `${what}: the ${secret === TOKEN ? 'token' : 'secret'} is not in the log`)
}

t.test('a token in the query under any name and encoding never reaches the log', async (t) => {
  const { app, log } = await buildWithLog(t)
  let requests = 0
  for (const name of NAMES) {
    for (const encodeName of Object.values(encodings)) {
      for (const encodeValue of Object.values(encodings)) {
        for (const path of ['/workflow/x/history/stream', '/workflow/x/status', '/nope']) {
          const url = `${path}?pageSize=5&${encodeName(name)}=${encodeValue(TOKEN)}&other=1`
          await app.inject({ method: 'GET', url, headers: { accept: 'text/event-stream' } })
          requests++
        }
      }
    }
  }
  const text = log()
  t.equal(text.match(/incoming request/g)?.length, requests, 'every request was logged with its URL')
  t.match(text, /"url":"\/workflow\/x\/status\?pageSize=5&/, 'the rest of the URL is kept')
  assertNoSecret(t, text, `${requests} requests`)
})

t.test('a token in the path, in headers of any name, or in a request Node refuses never reaches the log', async (t) => {
  const { app, log } = await buildWithLog(t)
  for (const [encoding, encode] of Object.entries(encodings)) {
    await app.inject({ method: 'GET', url: `/workflow/${encode(TOKEN)}/status` })
    await app.inject({ method: 'GET', url: `/workflow/x${encode(TOKEN)}y/history` })
    await app.inject({ method: 'GET', url: '/workflow/x/status', headers: { authorization: `Bearer ${encode(TOKEN)}`, 'x-api-key': encode(TOKEN), 'x-custom': encode(TOKEN) } })
    t.pass(encoding)
  }
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as { port: number }
  // A request line Node's parser refuses is logged (trace) as a client error.
  for (const raw of [`GET /workflow/x/status?token=${TOKEN} HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n`,
    `GET /workflow/x/status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n\u0001bad: y\r\n\r\n`]) {
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(raw))
      socket.on('data', () => {})
      socket.on('close', () => resolve())
      socket.on('error', () => resolve())
    })
  }
  // Any other record that carries the token, in a field or in the message, in any of its forms.
  for (const encode of Object.values(encodings)) app.log.warn({ detail: `x${encode(TOKEN)}y`, nested: { value: encode(TOKEN) } }, `message ${encode(TOKEN)}`)
  const text = log()
  t.match(text, /client error/, 'the refused requests were logged')
  t.match(text, /\[redacted\]/, 'redacted values are marked')
  assertNoSecret(t, text, 'paths, headers and refused requests')
})

t.test('only access_token, on stream routes, with the exact decoded value, authenticates from the query', async (t) => {
  const { app } = await buildWithLog(t)
  const stream = '/workflow/no-such-workflow/history/stream'
  const get = async (url: string) => (await app.inject({ method: 'GET', url, headers: { accept: 'text/event-stream' } })).statusCode
  for (const [encoding, encode] of Object.entries(encodings)) {
    if (encoding === 'double') continue
    t.equal(await get(`${stream}?${encode('access_token')}=${encode(TOKEN)}`), 404, `access_token, name and value ${encoding}: authenticated (then 404)`)
  }
  t.equal(await get(`${stream}?access_token=${encodings.double(TOKEN)}`), 401, 'a double-encoded value is not the token')
  for (const name of NAMES.filter((n) => n !== 'access_token')) {
    t.equal(await get(`${stream}?${name}=${encodeURIComponent(TOKEN)}`), 401, `?${name}= does not authenticate`)
  }
  for (const value of ['', '%20', '+', '%09', `${TOKEN}%20`, `%20${TOKEN}`, TOKEN.slice(0, -1), `${TOKEN}&access_token=${TOKEN}`]) {
    t.equal(await get(`${stream}?access_token=${value}`), 401, `?access_token=${value.replace(TOKEN, '<token>')} is refused`)
  }
  t.equal(await get(`/workflow/no-such-workflow/status?access_token=${TOKEN}`), 401, 'not on other routes')
})

t.test('the keys file\'s run-token secrets, one a reload adds and one it drops, never reach the log', async (t) => {
  const FILE_SECRET = 'keys-file-run-token-secret-0123456789'
  const ADDED_SECRET = 'added-by-reload-run-token-secret-0123456789'
  const specs: KeySpec[] = [{ id: 'reader', scopes: ['read'] }]
  const fixture = keysFile(t, specs)
  fixture.write(specs, { runTokenSecrets: [FILE_SECRET] })
  const { app, log } = await buildWithLog(t, { SERVICE_API_KEYS_FILE: fixture.file })
  const reloads = () => log().match(/API keys reloaded/g)?.length ?? 0
  let requests = 0
  // What a log line can carry: a request's URL (path or a parameter of any name, in any encoding) and any field of a record.
  const carry = async (secret: string) => {
    for (const encode of Object.values(encodings)) {
      await app.inject({ method: 'GET', url: `/workflow/${encode(secret)}/status`, headers: bearer(fixture.keys.reader!) })
      await app.inject({ method: 'GET', url: `/workflow/x/status?note=${encode(secret)}&other=1`, headers: bearer(fixture.keys.reader!) })
      requests += 2
      app.log.warn({ detail: `x${encode(secret)}y` }, `message ${encode(secret)}`)
    }
  }

  await carry(FILE_SECRET)
  fixture.write(specs, { runTokenSecrets: [FILE_SECRET, ADDED_SECRET] })
  t.ok(await until(() => reloads() === 1, 100, 50), 'the file was re-read')
  t.same(app.access.keys.runTokenSecrets, [FILE_SECRET, ADDED_SECRET], 'with the added secret')
  await carry(ADDED_SECRET)
  fixture.write(specs, { runTokenSecrets: [ADDED_SECRET] })
  t.ok(await until(() => reloads() === 2, 100, 50), 'the file was re-read again')
  t.same(app.access.keys.runTokenSecrets, [ADDED_SECRET], 'without the first secret')
  await carry(FILE_SECRET)

  const text = log()
  t.equal(text.match(/incoming request/g)?.length, requests, 'every request was logged with its URL')
  t.match(text, /"url":"\/workflow\/x\/status\?note=\[redacted\]&other=1"/, 'the parameter holding a secret is redacted, the rest kept')
  t.match(text, /"url":"\/workflow\/\[redacted\]\/status"/, 'so is a path segment')
  assertNoSecret(t, text, 'the secret the file listed at start, also once dropped', FILE_SECRET)
  assertNoSecret(t, text, 'the secret a reload added', ADDED_SECRET)
})
