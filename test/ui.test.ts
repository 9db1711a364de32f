/**
 * How the API serves the run inspector (plugins/external/ui.ts): the page, its vendored and bundled modules and
 * nothing else of node_modules, its CSP on /ui only, open without a key while the API stays
 * closed, hidden from the OpenAPI document, and switched off by SERVICE_UI_ENABLED=false (and by
 * default in production). The page itself is tested in Chromium (test/browser-inspector.test.ts).
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { build } from './helpers/app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { uiEnabled } from '../plugins/external/ui.js'

const KEY = 'ui-test-key-0123456789abcdef'

t.test('the page, its modules and its settings, with a strict CSP, open while the API needs a key', async (t) => {
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: KEY, SERVICE_UI_TEMPORAL_URL: 'http://127.0.0.1:8233' })

  const bare = await app.inject({ method: 'GET', url: '/ui' })
  t.equal(bare.statusCode, 301)
  t.equal(bare.headers.location, '/ui/', '/ui goes to /ui/ (the page\'s relative module paths need the slash)')

  const page = await app.inject({ method: 'GET', url: '/ui/' })
  t.equal(page.statusCode, 200, 'open without a key')
  t.match(page.headers['content-type'], /^text\/html/)
  t.match(page.body, /<script type="module" src="app.js"><\/script>/)
  t.notMatch(page.body, /<script>|<script type="module">/, 'no inline script in the page')
  const csp = String(page.headers['content-security-policy'])
  for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
    t.ok(csp.includes(directive), `CSP has ${directive}`)
  }
  t.equal(page.headers['x-content-type-options'], 'nosniff')
  t.equal(page.headers['referrer-policy'], 'no-referrer')

  for (const file of ['preact.mjs', 'htm.mjs', 'client.mjs', 'core.mjs', 'json-schema.mjs']) {
    const res = await app.inject({ method: 'GET', url: `/ui/vendor/${file}` })
    t.equal(res.statusCode, 200, `${file} is served`)
    t.match(res.headers['content-type'], /javascript/)
    t.ok(res.headers['content-security-policy'], `${file} carries the CSP too`)
  }
  for (const url of ['/ui/vendor/preact.mjs.map', '/ui/vendor/package.json', '/ui/vendor/../../package.json', '/ui/vendor/%2e%2e/package.json']) {
    t.equal((await app.inject({ method: 'GET', url })).statusCode >= 400, true, `${url} is not served`)
  }
  const app2 = await app.inject({ method: 'GET', url: '/ui/app.js' })
  t.equal(app2.statusCode, 200)
  t.notOk(/innerHTML|dangerouslySetInnerHTML|insertAdjacentHTML/.test(app2.body), 'the entry module writes no HTML')
  // The page's own modules are minified, with a source map that holds them as written.
  const written = readFileSync(new URL('../ui/app.js', import.meta.url), 'utf8')
  t.ok(app2.body.length < written.length * 0.8, `app.js is served minified (${app2.body.length} of ${written.length} characters)`)
  t.match(app2.body, /\/\/# sourceMappingURL=app\.js\.map\n$/, 'and names its source map')
  const map = await app.inject({ method: 'GET', url: '/ui/app.js.map' })
  t.equal(map.statusCode, 200)
  t.same(map.json().sourcesContent, [written], 'which holds the module as written')

  const settings = await app.inject({ method: 'GET', url: '/ui/settings.json' })
  t.same(settings.json(), { temporalUiUrl: 'http://127.0.0.1:8233', namespace: 'default', defaultCatalog: app.config.SERVICE_CATALOG_ID })

  const icon = await app.inject({ method: 'GET', url: '/favicon.ico' })
  t.equal(icon.statusCode, 200, 'the icon browsers ask for on their own is open')
  t.match(icon.headers['content-type'], /^image\/svg\+xml/)
  t.match(icon.body, /^<svg /)
  t.match(page.body, /<link rel="icon" href="favicon.svg"/, 'and the page names it')

  const api = await app.inject({ method: 'GET', url: '/workflow/catalog' })
  t.equal(api.statusCode, 401, 'the API still needs a key')
  t.notOk(api.headers['content-security-policy'], 'the CSP is the page\'s, not the API\'s')

  const doc = app.swagger() as { paths: Record<string, unknown> }
  t.same(Object.keys(doc.paths).filter((p) => p.startsWith('/ui')), [], 'no /ui path in the OpenAPI document')
  t.ok(app.access.routes.filter((r) => r.url.startsWith('/ui')).every((r) => r.public), 'the /ui routes are open in the access table')
})

t.test('no page module writes HTML from a string', async (t) => {
  const app = await build(t)
  for (const file of ['app.js', 'session.js', 'live.js', 'vendor/client.mjs', 'vendor/core.mjs', 'schema.js', 'common.js', 'catalog.js', 'runs.js', 'run.js', 'timeline.js', 'handlers.js', 'html.js', 'progressive.js', 'deployments.js', 'form.js', 'messages.js', 'vendor/json-schema.mjs']) {
    const res = await app.inject({ method: 'GET', url: `/ui/${file}` })
    t.equal(res.statusCode, 200, `${file} is served`)
    t.notOk(/innerHTML|outerHTML|dangerouslySetInnerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/.test(res.body), `${file} never parses a string as HTML or code`)
  }
})

t.test('SERVICE_UI_ENABLED=false: no page; production leaves it off unless asked', async (t) => {
  const app = await build(t, { SERVICE_UI_ENABLED: 'false' })
  const res = await app.inject({ method: 'GET', url: '/ui/' })
  t.equal(res.statusCode, 404)
  t.equal(res.json().error, 'RouteNotFoundError')

  const production = { NODE_ENV: 'production', SERVICE_API_AUTH_TOKEN: KEY }
  t.equal(uiEnabled(loadConfig(production)), false, 'off in production by default')
  t.equal(uiEnabled(loadConfig({ ...production, SERVICE_UI_ENABLED: 'true' })), true, 'on in production when asked')
  t.equal(uiEnabled(loadConfig({})), true, 'on outside production')
})
