/**
 * A real browser follows one run with a run token and never sees a key: the page's own server
 * asks for the token (POST /tokens, with its key), the page gets only the token. The same token on
 * another workflow id is a 403, an expired one a 401, and neither token nor key reaches the API's log.
 * Needs Debian's chromium at /usr/bin/chromium (`apt-get install -y chromium`); never downloads one.
 */
import t from 'tap'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { traceEnv } from './helpers/app.js'
import { launchChromium, servePage } from './helpers/browser.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { engineClient, startExample } from './helpers/history.js'
import { bearer, keysFile } from './helpers/keys.js'
import { until } from './helpers/processes.js'

const page = (api: string, workflowId: string, otherId: string, token: string, shortToken: string) => `<!doctype html>
<meta charset="utf-8"><title>follow one run</title>
<script>
  window.received = []
  window.state = 'open'
  const source = new EventSource(${JSON.stringify(`${api}/workflow/${workflowId}/history/stream?access_token=`)} + ${JSON.stringify(token)})
  for (const name of ['workflow', 'history', 'done', 'server_error']) {
    source.addEventListener(name, (e) => {
      window.received.push(name)
      if (name === 'done' || name === 'server_error') { source.close(); window.state = name }
    })
  }
  window.check = async (id, credential) => {
    const res = await fetch(${JSON.stringify(`${api}/workflow/`)} + id + '/history/stream?access_token=' + credential, { headers: { accept: 'text/event-stream' } })
    return { status: res.status, body: await res.json() }
  }
  window.tokens = { token: ${JSON.stringify(token)}, short: ${JSON.stringify(shortToken)}, workflowId: ${JSON.stringify(workflowId)}, otherId: ${JSON.stringify(otherId)} }
</script>`

t.test('a browser page follows its run with a run token, and only that run, only while the token lives', async (t) => {
  const client = await engineClient(t)
  const fixture = keysFile(t, [{ id: 'page-server', scopes: ['read', 'admin'] }])
  const lines: string[] = []
  const config = loadConfig({ ...traceEnv(), TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: testCatalog(), SERVICE_API_KEYS_FILE: fixture.file, LOG_LEVEL: 'trace' })
  const app = await buildApp({ config, logger: { level: 'trace', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => app.close())
  const api = await app.listen({ port: 0, host: '127.0.0.1' })

  const browser = await launchChromium(t)
  const run = await startExample(client, 'sleepy', { steps: 4, delayMs: 300 })
  const other = await startExample(client, 'hello', { name: 'other' })
  // The page's server holds the key and hands the page a token for this run only.
  const issue = async (ttl: number) => (await app.inject({ method: 'POST', url: '/tokens', headers: bearer(fixture.keys['page-server']!), payload: { workflowId: run.workflowId, scopes: ['read'], ttl } })).json().token as string
  const token = await issue(600)
  const shortToken = await issue(1)
  const html = page(api, run.workflowId, other.workflowId, token, shortToken)
  t.notOk(html.includes(fixture.keys['page-server']!), 'the page never holds the key')
  const tab = await browser.newPage()
  await tab.goto(await servePage(t, () => html))

  await tab.waitForFunction(() => (globalThis as any).state !== 'open', undefined, { timeout: 120_000 })
  const received: string[] = await tab.evaluate(() => (globalThis as any).received)
  t.equal(received[0], 'workflow')
  t.ok(received.includes('history'))
  t.equal(received.at(-1), 'done', 'followed to done')

  const elsewhere = await tab.evaluate(async () => { const w = globalThis as any; return await w.check(w.tokens.otherId, w.tokens.token) })
  t.equal(elsewhere.status, 403, 'the same token on another workflow id: 403')
  t.equal(elsewhere.body.error, 'ForbiddenError')
  t.ok(await until(async () => (await tab.evaluate(async () => { const w = globalThis as any; return (await w.check(w.tokens.workflowId, w.tokens.short)).status })) === 401, 40, 100),
    'an expired token: 401')

  const log = lines.join('')
  t.ok(log.includes('/history/stream'), 'the stream requests are in the log')
  for (const [what, secret] of [['token', token], ['short token', shortToken], ['key', fixture.keys['page-server']!]] as const) {
    t.notOk(log.includes(secret) || log.includes(secret.split('.').at(-1)!), `the ${what} is not`)
  }
})
