/**
 * Fix and retry from the inspector's run page (ui/recovery.js), in Debian's Chromium against the
 * real API, engine and worker: a failed `explode` run is reset from its failed step, run again
 * with the same input, and its input opened for editing; a key with only `read` sees each action
 * disabled with the reason, which the page learns from GET /me (also checked here for keys, run
 * tokens and auth off).
 */
import t from 'tap'
import type { Page } from 'playwright-core'
import { build } from './helpers/app.js'
import { launchChromium } from './helpers/browser.js'
import { bearer, keysFile } from './helpers/keys.js'
import { newId, waitClosed } from './helpers/workflows.js'

const WAIT = 90_000
const runHash = (workflowId: string, runId: string) => `#/run/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}`
const newRunOf = (href: string | null) => decodeURIComponent(href ?? '').split('/').slice(-2)

t.test('GET /me says what the credential may do: a key, a limited key, a run token, and auth off', async (t) => {
  const { keys, file } = keysFile(t, [
    { id: 'operator', scopes: ['read', 'run', 'control', 'admin'] },
    { id: 'limited', scopes: ['read'], catalogs: ['billing'], workflows: ['hello*'] }
  ])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file })
  const me = async (headers: Record<string, string>) => await app.inject({ method: 'GET', url: '/me', headers })
  t.same((await me(bearer(keys.operator!))).json(),
    { kind: 'key', keyId: 'operator', scopes: ['read', 'run', 'control', 'admin'], catalogs: null, workflows: null, boundTo: null })
  t.same((await me(bearer(keys.limited!))).json(),
    { kind: 'key', keyId: 'limited', scopes: ['read'], catalogs: ['billing'], workflows: ['hello*'], boundTo: null })
  const token = (await app.inject({ method: 'POST', url: '/tokens', headers: bearer(keys.operator!), payload: { workflowId: 'order-7', scopes: ['read'], ttl: 60 } })).json().token
  t.same((await me(bearer(token))).json(),
    { kind: 'runToken', keyId: 'operator', scopes: ['read'], catalogs: null, workflows: null, boundTo: { workflowId: 'order-7', runId: null } })
  const none = await me({})
  t.equal(none.statusCode, 401, 'no credential, no answer')

  const open = await build(t)
  t.same((await open.inject({ method: 'GET', url: '/me' })).json(),
    { kind: 'open', keyId: null, scopes: ['read', 'run', 'interact', 'control', 'admin'], catalogs: null, workflows: null, boundTo: null })
})

t.test('a failed run: reset from the failed step, run again, edit the input; a read-only key sees why it cannot', async (t) => {
  const { keys, file } = keysFile(t, [
    { id: 'operator', scopes: ['read', 'run', 'control'] },
    { id: 'viewer', scopes: ['read'] }
  ])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file })
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const asOperator = bearer(keys.operator!)
  const started = await app.inject({ method: 'POST', url: '/workflow/start', headers: asOperator, payload: { workflowName: 'explode', workflowId: newId('recovery'), input: { message: 'boom 17' } } })
  t.equal(started.statusCode, 200)
  const failed = started.json() as { workflowId: string, runId: string }
  t.equal(await waitClosed(app, failed.workflowId, failed.runId), 'FAILED')

  const browser = await launchChromium(t)
  const open = async (key: string): Promise<Page> => {
    const tab = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage()
    tab.setDefaultTimeout(WAIT)
    await tab.addInitScript((k) => { (globalThis as any).sessionStorage.setItem('flowport.token', k) }, key)
    await tab.goto(`${base}/ui/${runHash(failed.workflowId, failed.runId)}`)
    await tab.locator('.recovery').waitFor()
    return tab
  }

  await t.test('the operator resets the run from its failed step', async (t) => {
    const tab = await open(keys.operator!)
    t.equal(await tab.locator('select[name="resetFrom"]').inputValue(), 'failedStep', 'the failed step is the default')
    t.equal(await tab.title(), `Run ${failed.workflowId} · Flowport inspector`, 'the title names the run')
    await tab.locator('.recovery input[name="reason"]').fill('fixed the detonator')
    await tab.getByRole('button', { name: 'Reset…' }).click()
    t.match(await tab.locator('.recovery .consequence').textContent(), /steps before it keep their results.*This run stays as it is/s,
      'the confirmation says what happens to the steps before it and to this run')
    t.equal((await app.inject({ method: 'GET', url: `/workflow/${failed.workflowId}/status`, headers: asOperator })).json().runId, failed.runId,
      'nothing happens before the confirmation')
    await tab.getByRole('button', { name: 'Yes, reset' }).click()
    const link = tab.locator('.recovery-answer a.new-run')
    await link.waitFor()
    const [workflowId, runId] = newRunOf(await link.getAttribute('href'))
    t.equal(workflowId, failed.workflowId)
    t.not(runId, failed.runId, 'a new run')
    const status = (await app.inject({ method: 'GET', url: `/workflow/${workflowId}/runs/${runId}/status`, headers: asOperator })).json()
    t.match(status, { resetFrom: { runId: failed.runId } }, 'made by a reset of the failed run')
    const history = await app.engine.client.workflow.getHandle(failed.workflowId, runId).fetchHistory()
    t.ok(JSON.stringify(history).includes('fixed the detonator'), 'with the reason typed on the page')
  })

  await t.test('the operator runs it again with the same input, or opens the input to edit it', async (t) => {
    const tab = await open(keys.operator!)
    await tab.getByRole('button', { name: 'Run again with the same input' }).click()
    const link = tab.locator('.recovery-answer a.new-run')
    await link.waitFor()
    const [workflowId, runId] = newRunOf(await link.getAttribute('href'))
    t.not(workflowId, failed.workflowId, 'a new run of its own')
    const input = (await app.inject({ method: 'GET', url: `/workflow/${workflowId}/runs/${runId}/input`, headers: asOperator })).json()
    t.same(input.input, { message: 'boom 17' }, 'with the failed run\'s input')

    await tab.getByRole('link', { name: 'Edit the input and run again' }).click()
    await tab.locator('.workflow-detail h3', { hasText: /^explode$/ }).waitFor()
    await tab.locator('.prefilled').waitFor()
    t.equal(await tab.title(), 'Catalog · explode · Flowport inspector', 'the title names the view')
    t.equal(await tab.locator('form.start input#input_message').inputValue(), 'boom 17', 'the start form holds that input')
  })

  await t.test('a key with only read sees the actions disabled, with the reason', async (t) => {
    const tab = await open(keys.viewer!)
    t.ok(await tab.getByRole('button', { name: 'Reset…' }).isDisabled(), 'reset disabled')
    t.ok(await tab.getByRole('button', { name: 'Run again with the same input' }).isDisabled(), 'run again disabled')
    const why = await tab.locator('.recovery .why-disabled').allTextContents()
    t.match(why.join('\n'), /Key viewer lacks scope control: reset needs it/)
    t.match(why.join('\n'), /Key viewer lacks scope run: starting a run needs it/)
  })
})
