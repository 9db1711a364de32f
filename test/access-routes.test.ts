/**
 * Every route declares the scope it needs, and each scope opens exactly its routes: the scope ×
 * route matrix is generated from the app's own route table, so a new route is covered (or, without
 * a declaration, fails here) without editing this file.
 */
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { build } from './helpers/app.js'
import type { App } from '../app.js'
import type { RouteAccess } from '../plugins/app/access/access.js'
import { bearer, keysFile } from './helpers/keys.js'
import { testCatalog } from './helpers/env.js'
import { waitClosed } from './helpers/workflows.js'
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

/**
 * One call of a route with a key, touching nothing: unknown ids, an empty body. A stream the key
 * may open would never end under inject: a malformed Last-Event-ID stops it at validation, after
 * the scope check.
 */
async function callRoute (app: App, route: RouteAccess, key: string) {
  const streamHeaders = { accept: 'text/event-stream', 'last-event-id': 'not an id' }
  return await app.inject({
    method: route.method as 'GET',
    url: concrete(route.url),
    headers: { ...bearer(key), ...(route.url.endsWith('/stream') ? streamHeaders : { accept: 'application/json' }) },
    ...(route.method === 'GET' ? {} : { payload: {} })
  })
}

/** The routes a key can be refused on: every protected one (HEAD answers as its GET). */
const protectedRoutes = (app: App) => app.access.routes.filter((r) => !r.public && r.method !== 'HEAD')

t.test('every route is open or declares its scope and what it touches', async (t) => {
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN })
  await app.ready()
  const undeclared = app.access.routes.filter((r) => !r.public && (r.scope === undefined || r.target === undefined))
  t.same(undeclared, [], 'no route without a scope and a target')
  // Swagger UI and the run inspector's static page (test/ui.test.ts) hold no data: open too.
  const pages = (url: string) => url.startsWith('/docs') || url === '/ui' || url.startsWith('/ui/') || url === '/favicon.ico'
  const open = app.access.routes.filter((r) => r.public && !pages(r.url)).map((r) => `${r.method} ${r.url}`).sort()
  t.same(open, ['GET /health', 'GET /openapi.json', 'GET /ready', 'HEAD /health', 'HEAD /openapi.json', 'HEAD /ready'], 'only health, readiness and the description are open')
  t.ok(app.access.routes.some((r) => r.url.startsWith('/ui/')), 'the inspector\'s routes are in the table')
  // docs/access-control.md: schedules are read with `read` and changed with `control`.
  const schedules = app.access.routes.filter((r) => r.url.startsWith('/schedules') && r.method !== 'HEAD')
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
  t.ok(app.access.routes.some((r) => r.url === '/undeclared' && r.scope === undefined), 'the route table shows it undeclared (the test above would fail)')
})

t.test('scope × route: each single-scope key opens exactly the routes of its scope', async (t) => {
  const { keys, file } = keysFile(t, SCOPES.map((scope) => ({ id: `only-${scope}`, scopes: [scope] })))
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: TOKEN, SERVICE_API_KEYS_FILE: file })
  await app.ready()
  const routes = protectedRoutes(app)
  t.ok(routes.length >= 25, `${routes.length} routes`)
  for (const route of routes) {
    for (const scope of SCOPES) {
      const res = await callRoute(app, route, keys[`only-${scope}`]!)
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

t.test('three keys (a dashboard, a CI key on one catalog, an operator) each do exactly what their scopes say on every route, and nothing else', async (t) => {
  // docs/access-control.md: a read-only dashboard, a CI key that may only start on one catalog, an operator.
  const catalog = testCatalog()
  const THREE = [
    { id: 'dashboard', scopes: ['read'] as Scope[] },
    { id: 'ci', scopes: ['run'] as Scope[], catalogs: [catalog] },
    { id: 'operator', scopes: ['read', 'interact', 'control'] as Scope[] }
  ]
  const { keys, file } = keysFile(t, THREE)
  const app = await build(t, { SERVICE_API_KEYS_FILE: file })
  await app.ready()
  const routes = protectedRoutes(app)
  t.ok(routes.length >= 25, `${routes.length} routes`)
  const allowed: Record<string, number> = {}
  for (const route of routes) {
    for (const { id, scopes } of THREE) {
      const res = await callRoute(app, route, keys[id]!)
      const label = `${route.method} ${route.url} with ${id}`
      if (scopes.includes(route.scope!)) {
        t.notOk([401, 403].includes(res.statusCode), `${label}: let through (${res.statusCode})`)
        allowed[id] = (allowed[id] ?? 0) + 1
      } else {
        t.equal(res.statusCode, 403, `${label}: 403`)
        t.same(res.json(), { error: 'ForbiddenError', message: `Key ${id} lacks scope ${route.scope!}` }, `${label}: names the missing scope`)
      }
    }
  }
  // Each key was let through somewhere and refused elsewhere: the walk tells the two apart.
  for (const { id } of THREE) t.ok((allowed[id] ?? 0) > 0 && allowed[id]! < routes.length, `${id}: allowed on ${allowed[id] ?? 0} of ${routes.length} routes`)

  // The CI key's catalog limit on every start route (those with the run scope that start from a body).
  const starts = routes.filter((r) => r.scope === 'run' && r.target === 'start').map((r) => r.url).sort()
  t.same(starts, ['/evals', '/workflow/run', '/workflow/start'], 'the start routes')
  const evalElsewhere = await app.inject({ method: 'POST', url: '/evals', headers: bearer(keys.ci!), payload: { workflowName: 'triage', catalog: 'another-catalog' } })
  t.equal(evalElsewhere.statusCode, 403, '/evals on another catalog: 403')
  t.same(evalElsewhere.json(), { error: 'ForbiddenError', message: 'Key ci may not use catalog another-catalog' }, '/evals: names the catalog')
  for (const url of starts.filter((u) => u !== '/evals')) {
    const body = (workflowCatalog: string) => ({ workflowName: 'hello', input: { name: 'Ada' }, catalog: workflowCatalog, workflowId: `access-done-${randomUUID()}` })
    const elsewhere = await app.inject({ method: 'POST', url, headers: bearer(keys.ci!), payload: body('another-catalog') })
    t.equal(elsewhere.statusCode, 403, `${url} on another catalog: 403`)
    t.same(elsewhere.json(), { error: 'ForbiddenError', message: 'Key ci may not use catalog another-catalog' }, `${url}: names the catalog`)
    const own = await app.inject({ method: 'POST', url, headers: bearer(keys.ci!), payload: body(catalog) })
    t.equal(own.statusCode, 200, `${url} on its own catalog: 200`)
    t.equal(await waitClosed(app, own.json().workflowId), 'COMPLETED', `${url}: the run it started completes`)
  }
})

t.test('docs/keys-file.schema.json is the schema the API validates with (npm run openapi writes it)', async (t) => {
  t.equal(readFileSync(keysFileSchemaUrl, 'utf8'), keysFileSchemaText())
})
