/**
 * Run tokens (POST /tokens) against the real engine: who may issue them and with what, what they
 * open (their workflow id, their run, their scopes) and what they do not, expiry, revocation with
 * the issuing key, secret rotation across replicas, and the query string that only takes them.
 */
import t, { type Test } from 'tap'
import { buildApp, type App } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { build, traceEnv } from './helpers/app.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { bearer, keysFile } from './helpers/keys.js'
import { until } from './helpers/processes.js'
import { RunTokens } from '../plugins/app/access/run-tokens.js'

const SECRET_A = 'run-token-secret-a-0123456789abcdef'
const SECRET_B = 'run-token-secret-b-0123456789abcdef'
const SECRET_C = 'run-token-secret-c-0123456789abcdef'

async function issue (app: App, key: string, body: object) {
  const res = await app.inject({ method: 'POST', url: '/tokens', headers: bearer(key), payload: body })
  return { status: res.statusCode, body: res.json() }
}

const KEYS = [
  { id: 'admin', scopes: ['read', 'interact', 'admin'] as const },
  { id: 'reader', scopes: ['read'] as const },
  { id: 'read-admin', scopes: ['read', 'admin'] as const }
]

async function setup (t: Test, env: Record<string, string> = {}) {
  const fixture = keysFile(t, KEYS.map((k) => ({ ...k, scopes: [...k.scopes] })))
  const app = await build(t, { SERVICE_API_KEYS_FILE: fixture.file, SERVICE_RUN_TOKEN_SECRETS: SECRET_A, ...env })
  return { app, fixture, keys: fixture.keys }
}

t.test('issuing: scope admin, at most the key\'s own scopes, ttl capped', async (t) => {
  const { app, keys } = await setup(t, { SERVICE_RUN_TOKEN_MAX_TTL_S: '60' })
  const ok = await issue(app, keys.admin!, { workflowId: 'any-id', scopes: ['read', 'interact'], ttl: 60 })
  t.equal(ok.status, 200)
  t.match(ok.body, { token: /^[\w-]+\.[\w-]+\.[\w-]+$/, expiresAt: String })
  t.ok(Date.parse(ok.body.expiresAt) - Date.now() <= 60_000, 'expiresAt is ttl away at most')
  t.match(await issue(app, keys.reader!, { workflowId: 'any-id', scopes: ['read'], ttl: 60 }), { status: 403, body: { message: 'Key reader lacks scope admin' } })
  t.match(await issue(app, keys['read-admin']!, { workflowId: 'any-id', scopes: ['read', 'interact'], ttl: 60 }),
    { status: 403, body: { error: 'ForbiddenError', message: 'Key read-admin cannot grant scope interact: it does not hold it' } })
  t.match(await issue(app, keys.admin!, { workflowId: 'any-id', scopes: ['read'], ttl: 61 }), { status: 400, body: { issues: [{ path: '/ttl', in: 'body', message: 'must be <= 60' }] } })
  const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json()
  t.match(document.components.schemas.RunTokenRequest.properties.ttl, { maximum: 60, description: /SERVICE_RUN_TOKEN_MAX_TTL_S \(60 on this server\)/ },
    'the served document states the cap this server applies')
  t.match(await issue(app, keys.admin!, { workflowId: 'any-id', scopes: ['run'], ttl: 10 }), { status: 400 }, 'run (start) is not a run token\'s scope')
})

t.test('a run token opens its workflow id within its scopes, and nothing else', async (t) => {
  const { app, keys } = await setup(t)
  const full = await build(t, { SERVICE_API_AUTH_TOKEN: 'full-token-0123456789', SERVICE_RUN_TOKEN_SECRETS: SECRET_A })
  const run = async () => (await full.inject({ method: 'POST', url: '/workflow/start', headers: bearer('full-token-0123456789'), payload: { workflowName: 'approval', input: { label: 'x' } } })).json()
  const a = await run()
  const b = await run()

  const token = (await issue(app, keys.admin!, { workflowId: a.workflowId, scopes: ['read'], ttl: 300 })).body.token
  const get = async (url: string, credential = token) => await app.inject({ method: 'GET', url, headers: bearer(credential) })
  t.equal((await get(`/workflow/${a.workflowId}/status`)).statusCode, 200, 'its workflow: read')
  t.equal((await get(`/workflow/${a.workflowId}/runs/${a.runId}/status`)).statusCode, 200, 'any run of it')
  const other = await get(`/workflow/${b.workflowId}/status`)
  t.equal(other.statusCode, 403)
  t.same(other.json(), { error: 'ForbiddenError', message: 'This run token (issued by key admin) is bound to another workflow id', workflowId: b.workflowId })
  t.match((await get('/workflow/catalog')).json(), { error: 'ForbiddenError', message: /only opens the routes of workflow/ })
  t.match((await get(`/workflow/runs?catalog=${testCatalog()}`)).statusCode, 403)
  const signal = await app.inject({ method: 'POST', url: `/workflow/${a.workflowId}/signal/approve`, headers: bearer(token), payload: { payload: { by: 'x' } } })
  t.match(signal.json(), { error: 'ForbiddenError', message: /lacks scope interact/ }, 'only the scopes it carries')
  t.equal((await app.inject({ method: 'POST', url: '/tokens', headers: bearer(token), payload: { workflowId: a.workflowId, scopes: ['read'], ttl: 10 } })).statusCode, 403, 'a run token issues no tokens')

  const pinned = (await issue(app, keys.admin!, { workflowId: a.workflowId, runId: a.runId, scopes: ['read', 'interact'], ttl: 300 })).body.token
  t.equal((await get(`/workflow/${a.workflowId}/runs/${a.runId}/status`, pinned)).statusCode, 200, 'run-bound: its run')
  t.match((await get(`/workflow/${a.workflowId}/status`, pinned)).json(), { error: 'ForbiddenError', message: /bound to run/ }, 'run-bound: not the latest-run form')
  const query = await app.inject({ method: 'POST', url: `/workflow/${a.workflowId}/query/state`, headers: bearer(pinned) })
  t.equal(query.statusCode, 403, 'query is a latest-run route: refused for a run-bound token')

  for (const id of [a.workflowId, b.workflowId]) await full.engine.client.workflow.getHandle(id).terminate('test over')
})

t.test('the query string takes run tokens only; keys there are refused unless the development switch is on', async (t) => {
  const { app, keys } = await setup(t)
  const url = '/workflow/no-such-workflow/history/stream'
  const sse = async (query: string, a = app) => await a.inject({ method: 'GET', url: `${url}?${query}`, headers: { accept: 'text/event-stream' } })
  const refused = await sse(`access_token=${keys.reader}`)
  t.equal(refused.statusCode, 401)
  t.match(refused.json().message, /API keys are refused in the query string: they would be kept in logs/)
  const token = (await issue(app, keys.admin!, { workflowId: 'no-such-workflow', scopes: ['read'], ttl: 60 })).body.token
  t.equal((await sse(`access_token=${token}`)).statusCode, 404, 'a run token is accepted (then 404: no such workflow)')
  t.equal((await app.inject({ method: 'GET', url: `/workflow/no-such-workflow/status?access_token=${token}` })).statusCode, 401, 'only on stream routes')

  const compat = await setup(t, { SERVICE_API_QUERY_KEYS_ALLOWED: 'true' })
  t.equal((await sse(`access_token=${compat.keys.reader}`, compat.app)).statusCode, 404, 'SERVICE_API_QUERY_KEYS_ALLOWED=true: a key is accepted there')
  t.throws(() => loadConfig({ NODE_ENV: 'production', SERVICE_API_AUTH_TOKEN: 'a-long-enough-token-123', SERVICE_API_QUERY_KEYS_ALLOWED: 'true' }), { message: /development switch/ })
})

t.test('a key in the query is refused whatever the header holds; a run token as ?runToken= opens the stream; the document declares no query security scheme', async (t) => {
  const { app, keys } = await setup(t)
  const full = await build(t, { SERVICE_API_AUTH_TOKEN: 'full-token-0123456789', SERVICE_RUN_TOKEN_SECRETS: SECRET_A })
  const started = (await full.inject({ method: 'POST', url: '/workflow/start', headers: bearer('full-token-0123456789'), payload: { workflowName: 'hello', input: { name: 'q' } } })).json()
  const url = `/workflow/${started.workflowId as string}/history/stream`
  // A closed run's stream ends after its last event: wait for the close so the 200 answer completes.
  await full.engine.client.workflow.getHandle(started.workflowId).result()
  const sse = async (query: string, headers: Record<string, string> = {}) =>
    await app.inject({ method: 'GET', url: `${url}?${query}`, headers: { accept: 'text/event-stream', ...headers } })

  for (const name of ['runToken', 'access_token']) {
    const both = await sse(`${name}=${keys.reader}`, bearer(keys.reader!))
    t.equal(both.statusCode, 401, `${name}: the key in the header and in the query`)
    t.same(both.json(), { error: 'UnauthorizedError', message: both.json().message }, 'the documented error')
    t.match(both.json().message, /API keys are refused in the query string/)
    t.equal(both.headers['www-authenticate'], 'Bearer realm="flowport"')
  }
  const status = await app.inject({ method: 'GET', url: `/workflow/${started.workflowId as string}/status?runToken=${keys.admin}`, headers: bearer(keys.admin!) })
  t.equal(status.statusCode, 401, 'on any route, not only the streams')

  const token = (await issue(app, keys.admin!, { workflowId: started.workflowId, scopes: ['read'], ttl: 60 })).body.token
  const byToken = await sse(`runToken=${token}`)
  t.equal(byToken.statusCode, 200, 'a run token in the query opens the stream')
  t.match(byToken.body, /event: done/)
  t.equal((await sse(`runToken=${token}`, bearer(keys.reader!))).statusCode, 200, 'a run token in the query beside a key in the header')
  t.equal((await sse(`access_token=${token}`)).statusCode, 200, 'the older name still works (EventSource pages written for it)')

  const doc = app.swagger() as any
  t.same(Object.keys(doc.components.securitySchemes).sort(), ['basicToken', 'bearerAuth'], 'no apiKey-in-query scheme a generator would fill with the API key')
  const parameter = doc.paths['/workflow/{id}/history/stream'].get.parameters.find((p: { name: string }) => p.name === 'runToken')
  t.match(parameter, { in: 'query', required: false, description: /A run token \(POST \/tokens\) and nothing else/ }, 'a plain parameter named for run tokens')
  t.notOk(doc.paths['/workflow/{id}/history/stream'].get.parameters.some((p: { name: string }) => p.name === 'access_token'), 'the older name is not declared')
})

t.test('expiry, revocation with the issuing key, and secret rotation', async (t) => {
  const { app, keys, fixture } = await setup(t)
  const url = '/workflow/some-id/status'
  const status = async (token: string, a = app) => (await a.inject({ method: 'GET', url, headers: bearer(token) }))
  const short = (await issue(app, keys.admin!, { workflowId: 'some-id', scopes: ['read'], ttl: 1 })).body.token
  t.ok(await until(async () => (await status(short)).statusCode === 401, 40, 100), 'refused once expired')
  t.same((await status(short)).json(), { error: 'UnauthorizedError', message: 'Run token expired' })

  const token = (await issue(app, keys.admin!, { workflowId: 'some-id', scopes: ['read'], ttl: 300 })).body.token
  t.equal((await status(token)).statusCode, 404, 'valid (the workflow does not exist)')
  // Another replica holding the new secret first and the old one second verifies it; one without the old one does not.
  const rotated = await build(t, { SERVICE_API_KEYS_FILE: fixture.file, SERVICE_RUN_TOKEN_SECRETS: `${SECRET_B},${SECRET_A}` })
  t.equal((await status(token, rotated)).statusCode, 404, 'verified with the second secret')
  const newToken = (await issue(rotated, keys.admin!, { workflowId: 'some-id', scopes: ['read'], ttl: 300 })).body.token
  t.equal((await status(newToken)).statusCode, 401, 'signed with the new secret: unknown to the old replica')
  const without = await build(t, { SERVICE_API_KEYS_FILE: fixture.file, SERVICE_RUN_TOKEN_SECRETS: SECRET_B })
  t.same((await status(token, without)).json(), { error: 'UnauthorizedError', message: 'Run token signed with a secret this server does not hold' })
  // One character of the signature changed, not its last: base64url's last character carries bits no byte has, so 'xx' in place of the last two was once the same signature.
  const tampered = `${token.slice(0, -5)}${token.at(-5) === 'A' ? 'B' : 'A'}${token.slice(-4)}`
  t.match((await status(tampered)).json(), { error: 'UnauthorizedError' }, 'a tampered signature')

  fixture.write(KEYS.filter((k) => k.id !== 'admin').map((k) => ({ ...k, scopes: [...k.scopes] })))
  t.ok(await until(async () => (await status(token)).statusCode === 401, 100, 50), 'removing the issuing key revokes its tokens')
  t.same((await status(token)).json(), { error: 'UnauthorizedError', message: 'Run token of a key that is no longer valid' })
})

t.test('secrets listed in the keys file rotate with no restart, and replace SERVICE_RUN_TOKEN_SECRETS while listed', async (t) => {
  const specs = KEYS.map((k) => ({ ...k, scopes: [...k.scopes] }))
  const fixture = keysFile(t, specs)
  fixture.write(specs, { runTokenSecrets: [SECRET_A] })
  const app = await build(t, { SERVICE_API_KEYS_FILE: fixture.file, SERVICE_RUN_TOKEN_SECRETS: SECRET_C })
  const status = async (token: string) => await app.inject({ method: 'GET', url: '/workflow/some-id/status', headers: bearer(token) })
  const valid = async (token: string) => (await status(token)).statusCode === 404 // the workflow does not exist: past auth
  const refused = async (token: string) => (await status(token)).statusCode === 401
  // A token as another replica signing with only this secret would issue it.
  const signedWith = async (secret: string) => (await new RunTokens(() => [secret]).issue({ keyId: 'admin', workflowId: 'some-id', scopes: ['read'] }, 300)).token
  const issuedNow = async () => (await issue(app, keys.admin!, { workflowId: 'some-id', scopes: ['read'], ttl: 300 })).body.token as string
  const keys = fixture.keys

  const old = await issuedNow()
  t.ok(await valid(old), 'a token signed with the file\'s secret')
  t.ok(await new RunTokens(() => [SECRET_A]).verify(old), 'signed with its first secret')
  t.ok(await refused(await signedWith(SECRET_C)), 'the setting\'s secret is not used while the file lists secrets')

  fixture.write(specs, { runTokenSecrets: [SECRET_A, SECRET_B] })
  const fromB = await signedWith(SECRET_B)
  t.ok(await until(async () => await valid(fromB), 100, 50), 'a secret added second verifies without a restart')
  t.ok(await valid(old), 'the old one still does')

  fixture.write(specs, { runTokenSecrets: [SECRET_B, SECRET_A] })
  const bOnly = new RunTokens(() => [SECRET_B])
  t.ok(await until(async () => await bOnly.verify(await issuedNow()).then(() => true, () => false), 100, 50), 'moved first, it signs')
  t.ok(await valid(old), 'a token of the old secret verifies while the secret is listed')

  fixture.write(specs, { runTokenSecrets: [SECRET_B] })
  t.ok(await until(async () => await refused(old), 100, 50), 'the old secret removed: its token is refused')
  t.same((await status(old)).json(), { error: 'UnauthorizedError', message: 'Run token signed with a secret this server does not hold' })
  t.ok(await valid(fromB), 'the new secret\'s tokens stay valid')

  fixture.write(specs)
  const fromC = await signedWith(SECRET_C)
  t.ok(await until(async () => await valid(fromC), 100, 50), 'with no secret in the file, SERVICE_RUN_TOKEN_SECRETS applies again')
  t.ok(await refused(fromB), 'and the file\'s are gone')

  const short = keysFile(t, [])
  short.writeRaw(JSON.stringify({ keys: [], runTokenSecrets: ['too-short'] }))
  await t.rejects(buildApp({ config: loadConfig({ TEMPORAL_ADDRESS: engineAddress(), LOG_LEVEL: 'silent', SERVICE_API_KEYS_FILE: short.file }) }),
    { name: 'KeysFileError', message: /runTokenSecrets\/0 must NOT have fewer than 32 characters/ }, 'a secret too short for HS256 is refused')
})

t.test('with auth off a token is issued all the same and every route stays open', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'POST', url: '/tokens', payload: { workflowId: 'x', scopes: ['read'], ttl: 60 } })
  t.equal(res.statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: `/workflow/x/status?access_token=${res.json().token}` })).statusCode, 404)
})

t.test('a run token in the query never reaches the log', async (t) => {
  const fixture = keysFile(t, [{ id: 'admin', scopes: ['read', 'admin'] }])
  const lines: string[] = []
  const config = loadConfig({ ...traceEnv(), TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: testCatalog(), SERVICE_API_KEYS_FILE: fixture.file, SERVICE_RUN_TOKEN_SECRETS: SECRET_A, LOG_LEVEL: 'trace' })
  const app = await buildApp({ config, logger: { level: 'trace', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => app.close())
  const token = (await issue(app, fixture.keys.admin!, { workflowId: 'wf', scopes: ['read'], ttl: 60 })).body.token
  for (const url of [`/workflow/wf/history/stream?access_token=${token}`, `/workflow/other/history/stream?access_token=${token}`, `/workflow/wf/status?access_token=${token}`]) {
    await app.inject({ method: 'GET', url, headers: { accept: 'text/event-stream' } })
  }
  const log = lines.join('')
  t.ok(log.includes('/history/stream'), 'the requests were logged')
  t.notOk(log.includes(token) || log.includes(token.split('.')[2]!), 'the token is not')
  t.notOk(log.includes(fixture.keys.admin!) || log.includes(SECRET_A), 'nor the key or the secret')
})

t.test('auth on with no run-token secret configured: a warning at start names the setting', async (t) => {
  const startLog = async (env: Record<string, string>) => {
    const lines: string[] = []
    const config = loadConfig({ ...traceEnv(), TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: testCatalog(), LOG_LEVEL: 'info', ...env })
    const app = await buildApp({ config, logger: { level: 'info', stream: { write: (line: string) => { lines.push(line) } } } })
    await app.close()
    return lines.map((line) => JSON.parse(line) as { level: number, msg: string })
  }
  const warned = (lines: Array<{ level: number, msg: string }>) => lines.filter((l) => l.level === 40 && l.msg.includes('SERVICE_RUN_TOKEN_SECRETS'))
  const without = warned(await startLog({ SERVICE_API_AUTH_TOKEN: 'full-token-0123456789' }))
  t.equal(without.length, 1, 'one warning')
  t.match(without[0]?.msg, /tokens issued by other replicas .* are refused/)
  t.same(warned(await startLog({ SERVICE_API_AUTH_TOKEN: 'full-token-0123456789', SERVICE_RUN_TOKEN_SECRETS: SECRET_A })), [], 'none with a secret')
  t.same(warned(await startLog({})), [], 'none with auth off')
})
