/**
 * Every route declares the scope it needs, and each scope opens exactly its routes: the scope ×
 * route matrix is generated from the app's own route table, so a new route is covered (or, without
 * a declaration, fails here) without editing this file.
 */
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { build } from './helpers/app.js'
import { bearer, keysFile } from './helpers/keys.js'
import { testCatalog } from './helpers/env.js'
import { readFileSync } from 'node:fs'
import { SCOPES, type Scope } from '../schemas/access.js'
import { keysFileSchemaText, keysFileSchemaUrl } from '../schemas/keys-file.js'

const TOKEN = 'access-routes-token-0123456789'

/** A concrete URL for a route pattern: unknown ids, so nothing is touched. */
const concrete = (url: string) => url
  .replace(':catalogId', testCatalog())
  .replace(':id', `no-such-${randomUUID()}`)
  .replace(':rid', randomUUID())
  .replace(':name', 'x')
  .replace(':query', 'x')

t.test('every route is open or declares its scope and what it touches', async (t) => {
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN })
  await app.ready()
  const undeclared = app.accessTable.filter((r) => !r.public && (r.scope === undefined || r.target === undefined))
  t.same(undeclared, [], 'no route without a scope and a target')
  // Swagger UI and the run inspector's static page (test/ui.test.ts) hold no data: open too.
  const pages = (url: string) => url.startsWith('/docs') || url === '/ui' || url.startsWith('/ui/')
  const open = app.accessTable.filter((r) => r.public && !pages(r.url)).map((r) => `${r.method} ${r.url}`).sort()
  t.same(open, ['GET /health', 'GET /openapi.json', 'GET /ready', 'HEAD /health', 'HEAD /openapi.json', 'HEAD /ready'], 'only health, readiness and the description are open')
  t.ok(app.accessTable.some((r) => r.url.startsWith('/ui/')), 'the inspector\'s routes are in the table')
  // README "Access control": schedules are read with `read` and changed with `control`.
  const schedules = app.accessTable.filter((r) => r.url.startsWith('/schedules') && r.method !== 'HEAD')
  t.ok(schedules.length >= 8, `${schedules.length} schedule routes`)
  for (const r of schedules) t.equal(r.scope, r.method === 'GET' ? 'read' : 'control', `${r.method} ${r.url} needs ${r.method === 'GET' ? 'read' : 'control'}`)

  const doc = app.swagger() as { paths: Record<string, Record<string, any>> }
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (op.security?.length === 0) continue
      t.ok(SCOPES.includes(op['x-flowport-scope']), `${method} ${path}: its scope is in the document`)
      t.same(op.security.map((s: Record<string, string[]>) => Object.values(s)[0]), op.security.map(() => [op['x-flowport-scope']]), `${method} ${path}: each security requirement names the scope`)
      for (const status of ['401', '403', '429']) t.ok(op.responses[status], `${method} ${path} declares ${status}`)
    }
  }
})

t.test('a route that declares no scope needs every scope (fail closed)', async (t) => {
  const { keys, file } = keysFile(t, [{ id: 'reader', scopes: ['read'] }])
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN, SERVICE_API_KEYS_FILE: file })
  app.get('/undeclared', async () => ({ ok: true }))
  const reader = await app.inject({ method: 'GET', url: '/undeclared', headers: bearer(keys.reader!) })
  t.equal(reader.statusCode, 403)
  t.match(reader.json(), { error: 'ForbiddenError', message: /lacks scope/ })
  const full = await app.inject({ method: 'GET', url: '/undeclared', headers: bearer(TOKEN) })
  t.equal(full.statusCode, 200, 'SERVICE_API_AUTH_TOKEN holds every scope')
  t.ok(app.accessTable.some((r) => r.url === '/undeclared' && r.scope === undefined), 'the route table shows it undeclared (the test above would fail)')
})

t.test('scope × route: each single-scope key opens exactly the routes of its scope', async (t) => {
  const { keys, file } = keysFile(t, SCOPES.map((scope) => ({ id: `only-${scope}`, scopes: [scope] })))
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN, SERVICE_API_KEYS_FILE: file })
  await app.ready()
  const routes = app.accessTable.filter((r) => !r.public && r.method !== 'HEAD')
  t.ok(routes.length >= 25, `${routes.length} routes`)
  for (const route of routes) {
    const url = concrete(route.url)
    // A stream the key may open would never end under inject: a malformed Last-Event-ID stops it
    // at validation, after the scope check.
    const streamHeaders = { accept: 'text/event-stream', 'last-event-id': 'not an id' }
    for (const scope of SCOPES) {
      const res = await app.inject({
        method: route.method as 'GET',
        url,
        headers: { ...bearer(keys[`only-${scope}`]!), ...(route.url.endsWith('/stream') ? streamHeaders : { accept: 'application/json' }) },
        ...(route.method === 'GET' ? {} : { payload: {} })
      })
      const label = `${route.method} ${route.url} with a ${scope} key`
      if (scope === route.scope) {
        t.notOk([401, 403].includes(res.statusCode), `${label}: let through (${res.statusCode})`)
      } else {
        t.equal(res.statusCode, 403, `${label}: 403`)
        t.same(res.json(), { error: 'ForbiddenError', message: `Key only-${scope} lacks scope ${route.scope as Scope}` }, `${label}: names the missing scope`)
      }
    }
  }
  const none = await app.inject({ method: 'GET', url: '/workflow/catalog' })
  t.equal(none.statusCode, 401, 'no credential: 401 as before')
})

t.test('docs/keys-file.schema.json is the schema the API validates with (npm run openapi writes it)', async (t) => {
  t.equal(readFileSync(keysFileSchemaUrl, 'utf8'), keysFileSchemaText())
})
