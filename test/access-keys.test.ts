/**
 * Named keys against the real engine: three keys (a read-only dashboard, a CI key that may only
 * start on one catalog, an operator) each doing exactly what their scopes and limits say; workflow
 * patterns; expiry; rotation with no restart and no failed request; bad files; fail closed at
 * start; the constant-time lookup.
 */
import { timingSafeEqual } from 'node:crypto'
import t, { type Test } from 'tap'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { findKey, generateKey, hashKey, keyFromEntry } from '../plugins/app/access/keys.js'
import { build, traceEnv } from './helpers/app.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { bearer, keysFile, type KeySpec } from './helpers/keys.js'
import { newId, waitClosed } from './helpers/workflows.js'
import { until } from './helpers/processes.js'

const catalog = testCatalog()
const THREE: KeySpec[] = [
  { id: 'dashboard', scopes: ['read'] },
  { id: 'ci', scopes: ['run', 'read'], catalogs: [catalog] },
  { id: 'operator', scopes: ['read', 'interact', 'control'] }
]

async function buildWithLog (t: Test, env: Record<string, string>) {
  const lines: string[] = []
  const config = loadConfig({ ...traceEnv(), TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: catalog, LOG_LEVEL: 'info', ...env })
  const app = await buildApp({ config, logger: { level: 'info', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => app.close())
  return { app, log: () => lines.join('') }
}

t.test('three keys: each does exactly what its scopes and limits say', async (t) => {
  const { keys, file } = keysFile(t, THREE)
  const app = await build(t, { SERVICE_API_KEYS_FILE: file })
  const as = async (id: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => {
    const res = await app.inject({ method, url, headers: bearer(keys[id]!), ...(payload ? { payload } : {}) })
    return { status: res.statusCode, body: res.json() }
  }
  const startBody = (workflowCatalog = catalog) => ({ workflowName: 'approval', workflowId: newId('access'), input: { label: 'x' }, catalog: workflowCatalog })

  // ci starts on its catalog, not elsewhere; the others cannot start at all.
  const started = await as('ci', 'POST', '/workflow/start', startBody())
  t.equal(started.status, 200, 'ci starts on its catalog')
  const { workflowId } = started.body
  const elsewhere = await as('ci', 'POST', '/workflow/start', startBody('another-catalog'))
  t.equal(elsewhere.status, 403)
  t.same(elsewhere.body, { error: 'ForbiddenError', message: 'Key ci may not use catalog another-catalog' })
  for (const id of ['dashboard', 'operator']) {
    t.match(await as(id, 'POST', '/workflow/start', startBody()), { status: 403, body: { message: `Key ${id} lacks scope run` } })
  }

  // Everyone reads; ci only on its catalog (a run elsewhere is refused by its catalog).
  for (const id of ['dashboard', 'ci', 'operator']) {
    t.equal((await as(id, 'GET', `/workflow/${workflowId}/status`)).status, 200, `${id} reads the status`)
  }
  t.equal((await as('ci', 'GET', `/workflow/catalog/${catalog}`)).status, 200, 'ci reads its catalog')
  t.match(await as('ci', 'GET', '/workflow/catalog/another-catalog'), { status: 403, body: { message: 'Key ci may not use catalog another-catalog' } })
  t.match(await as('ci', 'GET', '/workflow/runs'), { status: 403, body: { message: /filter with \?catalog=/ } })
  t.equal((await as('ci', 'GET', `/workflow/runs?catalog=${catalog}`)).status, 200, 'ci lists the runs of its catalog')

  // Only the operator signals and terminates.
  for (const id of ['dashboard', 'ci']) {
    t.match(await as(id, 'POST', `/workflow/${workflowId}/signal/approve`, { payload: { by: 'x' } }), { status: 403, body: { message: `Key ${id} lacks scope interact` } })
    t.match(await as(id, 'POST', `/workflow/${workflowId}/terminate`, {}), { status: 403, body: { message: `Key ${id} lacks scope control` } })
  }
  t.equal((await as('operator', 'POST', `/workflow/${workflowId}/terminate`, { reason: 'done' })).status, 200, 'the operator terminates')
  t.equal(await waitClosed(app, workflowId), 'TERMINATED')
})

t.test('workflow-name patterns limit starts, runs, reads and listings', async (t) => {
  const { keys, file } = keysFile(t, [{ id: 'hello-only', scopes: ['run', 'read'], workflows: ['hel*'] }, { id: 'all', scopes: ['run', 'read'] }])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file })
  const as = async (id: string, method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await app.inject({ method, url, headers: bearer(keys[id]!), ...(payload ? { payload } : {}) })
    return { status: res.statusCode, body: res.json() }
  }
  const hello = await as('hello-only', 'POST', '/workflow/run', { workflowName: 'hello', input: { name: 'Ada' } })
  t.equal(hello.status, 200, 'hello matches hel*')
  t.match(await as('hello-only', 'POST', '/workflow/start', { workflowName: 'approval', input: { label: 'x' } }),
    { status: 403, body: { error: 'ForbiddenError', message: 'Key hello-only may not use workflow approval (it matches none of hel*)' } })
  const other = await as('all', 'POST', '/workflow/start', { workflowName: 'approval', input: { label: 'x' } })
  t.equal(other.status, 200)
  t.match(await as('hello-only', 'GET', `/workflow/${other.body.workflowId}/status`), { status: 403, body: { workflowId: other.body.workflowId } }, 'a run of another workflow is not readable')
  t.equal((await as('hello-only', 'GET', `/workflow/${hello.body.workflowId}/result`)).status, 200, 'its own run is')
  t.match(await as('hello-only', 'GET', '/workflow/runs'), { status: 403, body: { message: /filter with \?workflowName=/ } })
  t.equal((await as('hello-only', 'GET', '/workflow/runs?workflowName=hello')).status, 200)
  await app.inject({ method: 'POST', url: `/workflow/${other.body.workflowId}/terminate`, headers: bearer(keys.all!) })
  t.equal((await app.inject({ method: 'POST', url: `/workflow/${other.body.workflowId}/terminate`, headers: bearer(keys.all!) })).statusCode, 403, 'all has no control scope')
  await app.engine.client.workflow.getHandle(other.body.workflowId).terminate('test over')
})

t.test('unknown, malformed and expired credentials are 401', async (t) => {
  const { keys, file } = keysFile(t, [{ id: 'old', scopes: ['read'], expiresAt: '2020-01-01T00:00:00Z' }, { id: 'fresh', scopes: ['read'], expiresAt: '2999-01-01T00:00:00Z' }])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file })
  const get = async (authorization: string) => await app.inject({ method: 'GET', url: '/workflow/catalog', headers: { authorization } })
  t.same((await get(`Bearer ${keys.old}`)).json(), { error: 'UnauthorizedError', message: 'Key old has expired' })
  t.equal((await get(`Bearer ${keys.fresh}`)).statusCode, 200)
  for (const bad of [`Bearer ${generateKey()}`, 'Bearer a.b.c', 'Bearer', 'Token xyz', `Bearer ${keys.fresh} extra`]) {
    const res = await get(bad)
    t.equal(res.statusCode, 401, bad.replace(keys.fresh!, '<key>'))
    t.equal(res.json().error, 'UnauthorizedError')
  }
})

t.test('rotation: old and new key together, then the old one removed, with no restart and no failed request', async (t) => {
  const fixture = keysFile(t, [{ id: 'ci', scopes: ['read'] }])
  // Unlimited budget: the client below calls as fast as it can.
  const { app, log } = await buildWithLog(t, { SERVICE_API_KEYS_FILE: fixture.file, SERVICE_RATE_LIMIT_MAX: '0' })
  const status = async (key: string) => (await app.inject({ method: 'GET', url: '/workflow/catalog', headers: bearer(key) })).statusCode

  // A client keeps calling throughout, always with a key that is meant to be valid at that moment.
  let current = fixture.keys.ci!
  const failures: number[] = []
  let calls = 0
  const run = { going: true }
  const client = (async () => {
    while (run.going) {
      const code = await status(current)
      calls++
      if (code !== 200) failures.push(code)
      await new Promise((resolve) => setImmediate(resolve))
    }
  })()

  fixture.write([{ id: 'ci', scopes: ['read'] }, { id: 'ci-2026', scopes: ['read'] }])
  t.ok(await until(async () => await status(fixture.keys['ci-2026']!) === 200, 100, 50), 'the new key is accepted without a restart')
  t.equal(await status(fixture.keys.ci!), 200, 'the old key still is')
  current = fixture.keys['ci-2026']!
  const callsBefore = calls
  fixture.write([{ id: 'ci-2026', scopes: ['read'] }])
  t.ok(await until(async () => await status(fixture.keys.ci!) === 401, 100, 50), 'the removed key is refused')
  t.ok(await until(() => calls > callsBefore + 5, 100, 20), 'the client went on calling')
  run.going = false
  await client
  t.same(failures, [], `no failed request among ${calls}`)
  t.match(log(), /API keys reloaded/)
})

t.test('a file that becomes invalid keeps the last good keys and logs why; SIGHUP re-reads it', async (t) => {
  const fixture = keysFile(t, [{ id: 'reader', scopes: ['read'] }])
  const { app, log } = await buildWithLog(t, { SERVICE_API_KEYS_FILE: fixture.file })
  const status = async () => (await app.inject({ method: 'GET', url: '/workflow/catalog', headers: bearer(fixture.keys.reader!) })).statusCode

  fixture.writeRaw('{"keys": [{"id": "reader", "hash": "sha256:nothex", "scopes": ["read"]}]}')
  t.ok(await until(() => log().includes('API keys file rejected'), 100, 50), 'the rejection is logged')
  t.match(log(), /keys\/0\/hash must match pattern/, 'with the reason')
  t.equal(await status(), 200, 'the last good keys stay valid')
  fixture.writeRaw('keys: [')
  t.ok(await until(() => /not valid JSON or YAML/.test(log()), 100, 50))
  t.equal(await status(), 200)

  fixture.write([{ id: 'reader', scopes: ['read'] }])
  t.ok(await until(async () => await status() === 200 && log().includes('"why":"file changed"'), 100, 50))
  process.kill(process.pid, 'SIGHUP')
  t.ok(await until(() => log().includes('"why":"SIGHUP"'), 100, 50), 'SIGHUP re-reads the file')
})

t.test('a start with a bad keys file, or in production with no key at all, refuses to start', async (t) => {
  const base = { TEMPORAL_ADDRESS: engineAddress(), LOG_LEVEL: 'silent' }
  const bad = keysFile(t, [])
  bad.writeRaw('{"keys": [{"id": "x", "hash": "sha256:00", "scopes": []}]}')
  await t.rejects(buildApp({ config: loadConfig({ ...base, SERVICE_API_KEYS_FILE: bad.file }) }), { name: 'KeysFileError', message: /^Invalid SERVICE_API_KEYS_FILE .*keys\.json: \/keys\/0\/hash must match pattern/ })
  await t.rejects(buildApp({ config: loadConfig({ ...base, SERVICE_API_KEYS_FILE: `${bad.file}.missing` }) }), { message: /^Cannot read SERVICE_API_KEYS_FILE .*ENOENT/ })
  const duplicate = keysFile(t, [{ id: 'a', scopes: ['read'] }])
  duplicate.writeRaw(JSON.stringify({ keys: [{ id: 'a', hash: hashKey('x'), scopes: ['read'] }, { id: 'a', hash: hashKey('y'), scopes: ['read'] }] }))
  await t.rejects(buildApp({ config: loadConfig({ ...base, SERVICE_API_KEYS_FILE: duplicate.file }) }), { message: /key id a appears twice/ })
  const taken = keysFile(t, [{ id: 'default', scopes: ['read'] }])
  await t.rejects(buildApp({ config: loadConfig({ ...base, SERVICE_API_KEYS_FILE: taken.file, SERVICE_API_AUTH_TOKEN: 'some-token' }) }), { message: /key id default is SERVICE_API_AUTH_TOKEN's/ })

  const empty = keysFile(t, [])
  await t.rejects(buildApp({ config: loadConfig({ ...base, NODE_ENV: 'production', SERVICE_API_KEYS_FILE: empty.file }) }), { name: 'ConfigError', message: /holds no key/ })
  t.throws(() => loadConfig({ ...base, NODE_ENV: 'production' }), { message: /SERVICE_API_AUTH_TOKEN or SERVICE_API_KEYS_FILE/ })
  t.throws(() => loadConfig({ ...base, SERVICE_API_KEYS_FILE: empty.file, SERVICE_API_AUTH_DISABLED: 'true' }), { message: /contradicts/ })
  const yaml = keysFile(t, [], 'keys.yaml')
  yaml.writeRaw(`# the dashboard\nkeys:\n  - id: dash\n    hash: ${hashKey('k')}\n    scopes: [read]\n`)
  const app = await buildApp({ config: loadConfig({ ...base, NODE_ENV: 'production', SERVICE_API_KEYS_FILE: yaml.file }) })
  t.teardown(() => app.close())
  t.equal((await app.inject({ method: 'GET', url: '/workflow/catalog', headers: bearer('k') })).statusCode !== 401, true, 'a YAML keys file works, in production too')
})

t.test('the key lookup compares against every key, whichever matches', async (t) => {
  const secrets = Array.from({ length: 5 }, () => generateKey())
  const keys = secrets.map((s, i) => keyFromEntry({ id: `k${i}`, hash: hashKey(s), scopes: ['read'] }))
  for (const [what, given] of [['the first', secrets[0]!], ['the last', secrets[4]!], ['none', generateKey()]] as const) {
    let comparisons = 0
    const found = findKey(keys, given, (a, b) => { comparisons++; return timingSafeEqual(a, b) })
    t.equal(comparisons, keys.length, `${what}: ${keys.length} constant-time comparisons`)
    t.equal(found?.id, what === 'none' ? undefined : what === 'the first' ? 'k0' : 'k4')
  }
})
