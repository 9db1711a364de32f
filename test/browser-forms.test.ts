/**
 * Forms from schemas in the inspector (ui/form.js, ui/schema.js; docs/inspector.md), in Debian's
 * Chromium against the real API, engine and worker: `triage` opens without an error and starts from
 * its generated form; a catalog with every kind of field (enum, integer with a default, boolean,
 * array, nested object through a local $ref, date-time format) is drawn as fields, kept in sync with
 * its JSON view, and checked by the page's validator with errors tied to their fields; `approval`
 * is signalled, queried and updated from forms, and the messages are in the steps list and on the
 * timeline; a `sleepy` run shows its durable timers, and each step its index, duration and attempts;
 * on a phone, a tapped workflow's form comes into view and starts a run.
 */
import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import { catalogWorkflowId, type CatalogWorkflow } from '@flowport/core/contract'
import { build } from './helpers/app.js'
import { launchChromium } from './helpers/browser.js'
import { uniqueId } from './helpers/history.js'
import { publishCatalog } from './helpers/poller.js'
import { eventually } from './helpers/workflows.js'
import type { App } from '../app.js'

const WAIT = 90_000

/** The page's uncaught errors, asserted at the end of each test (none expected). */
const pageErrors = new WeakMap<Page, string[]>()

async function open (t: Test, base: string, hash: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const browser = await launchChromium(t)
  const tab = await (await browser.newContext({ viewport })).newPage()
  tab.setDefaultTimeout(WAIT)
  const errors: string[] = []
  tab.on('pageerror', (error) => { errors.push(error.message) })
  pageErrors.set(tab, errors)
  await tab.goto(`${base}/ui/${hash}`)
  return tab
}

async function pickWorkflow (tab: Page, name: string): Promise<void> {
  await tab.locator('button.workflow strong', { hasText: new RegExp(`^${name}$`) }).click()
  await tab.locator('.workflow-detail h3', { hasText: new RegExp(`^${name}$`) }).waitFor()
}

async function startRun (app: App, body: Record<string, unknown>): Promise<{ workflowId: string, runId: string }> {
  const res = await app.inject({ method: 'POST', url: '/workflow/start', payload: body })
  if (res.statusCode !== 200) throw new Error(`start: ${res.statusCode} ${res.body}`)
  return res.json()
}

t.test('triage opens valid, says what is missing only when sent, and starts from its form', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const tab = await open(t, base, '#/catalog')
  await pickWorkflow(tab, 'triage')
  const text = tab.locator('form.start input#input_text')
  await text.waitFor()
  t.equal(await tab.locator('form.start .field-error').count(), 0, 'no error when the form opens')
  t.notOk(await tab.getByRole('button', { name: 'Start run' }).isDisabled(), 'and Start is enabled')
  t.equal(await text.getAttribute('aria-required'), 'true', 'the required field says so')

  await tab.getByRole('button', { name: 'Start run' }).click()
  const error = tab.locator('form.start .field-error', { hasText: 'text is required' })
  await error.waitFor()
  t.equal(await text.getAttribute('aria-invalid'), 'true', 'the field is marked invalid')
  const describedBy = (await text.getAttribute('aria-describedby')) ?? ''
  t.ok(describedBy.split(' ').includes((await error.getAttribute('id')) ?? '-'), 'and described by its error')
  t.equal(await tab.evaluate(() => (globalThis as any).document.activeElement?.id), 'input_text', 'the focus goes to the field in error')

  await text.fill('The app crashes when I pay, urgent')
  await tab.locator('form.start .field-error').waitFor({ state: 'detached' })
  // The JSON view edits the same value.
  await tab.locator('form.start').getByRole('button', { name: 'JSON' }).click()
  t.same(JSON.parse(await tab.locator('textarea#inputjson').inputValue()), { text: 'The app crashes when I pay, urgent' }, 'the JSON view shows what the form holds')
  await tab.locator('textarea#inputjson').fill('{"text": "My invoice is wrong"}')
  await tab.locator('form.start').getByRole('button', { name: 'Form' }).click()
  t.equal(await text.inputValue(), 'My invoice is wrong', 'and the form shows what the JSON view wrote')
  await tab.getByRole('button', { name: 'Start run' }).click()
  await tab.locator('pre[aria-label="Output"]', { hasText: 'billing' }).waitFor()
  t.pass('the run started from the form completed')
  t.equal(await tab.evaluate(() => (globalThis as any).document.activeElement?.tagName), 'MAIN', 'the focus moved to the new view')
  const steps = tab.locator('.step-list .step[data-step]')
  t.same(await steps.evaluateAll((els) => els.map((e) => e.getAttribute('data-index'))), ['1', '2'], 'steps are numbered')
  t.match(await steps.first().textContent(), /#1.*classify.*completed.*\d+(\.\d+)?\s*m?s.*1 attempt/s, 'each with its duration and attempts')
  t.same(pageErrors.get(tab), [], 'no JavaScript error on the page')
})

t.test('every kind of field: drawn, kept in sync with JSON, checked by the validator', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const served = (await app.inject({ method: 'GET', url: '/workflow/catalog' })).json()
  const hello: CatalogWorkflow = served.workflows.find((w: CatalogWorkflow) => w.name === 'hello')
  const inputSchema = {
    type: 'object',
    required: ['title', 'priority', 'count', 'urgent', 'address'],
    additionalProperties: false,
    properties: {
      title: { type: 'string', minLength: 3, description: 'What it is about' },
      priority: { enum: ['low', 'normal', 'high'], default: 'normal' },
      count: { type: 'integer', minimum: 1, default: 2 },
      ratio: { type: 'number', maximum: 1 },
      urgent: { type: 'boolean' },
      due: { type: 'string', format: 'date-time' },
      tags: { type: 'array', items: { type: 'string' } },
      address: { $ref: '#/$defs/Address' },
      extra: { anyOf: [{ type: 'string' }, { type: 'number' }] }
    },
    $defs: { Address: { type: 'object', required: ['city'], properties: { city: { type: 'string', examples: ['Lyon'] }, zip: { type: 'string' } } } }
  }
  const catalog = uniqueId('forms-kinds')
  await publishCatalog(app.engine.client, catalog, [{ ...hello, inputSchema }])
  t.teardown(async () => { await app.engine.client.workflow.getHandle(catalogWorkflowId(catalog)).terminate('test cleanup') })
  await eventually(async () => (await app.inject({ method: 'GET', url: `/workflow/catalog?catalog=${catalog}` })).statusCode, (code) => code === 200)

  const tab = await open(t, base, `#/catalog?catalog=${encodeURIComponent(catalog)}&workflow=hello`)
  const form = tab.locator('form.start')
  await form.locator('input#input_title').waitFor()
  t.equal(await form.locator('.field-error').count(), 0, 'it opens without an error')
  t.equal(await form.locator('select#input_priority option:checked').textContent(), 'normal', 'an enum is a choice, opened at its default')
  t.equal(await form.locator('input#input_count').inputValue(), '2', 'an integer opens at its default')
  t.equal(await form.locator('input#input_count').getAttribute('step'), '1', 'and takes whole numbers')
  t.equal(await form.locator('input#input_urgent').getAttribute('type'), 'checkbox', 'a boolean is a checkbox')
  t.equal(await form.locator('input#input_address_city').inputValue(), 'Lyon', 'a nested object through a $ref, from its example')
  t.equal(await form.locator('fieldset[data-path="/tags"] legend').textContent(), 'tags', 'an array is a list')
  t.equal(await form.locator('textarea#input_extra').count(), 1, 'a union is edited as JSON in place')

  await form.locator('input#input_title').fill('ab')
  await form.locator('input#input_title').blur()
  await form.locator('.field-error', { hasText: 'title must have at least 3 characters' }).waitFor()
  t.pass('a left field shows its error in words')
  await form.locator('input#input_due').fill('tomorrow')
  await form.locator('input#input_due').blur()
  await form.locator('.field-error', { hasText: 'due must be a date-time' }).waitFor()
  t.pass('format is checked in the page')
  await form.locator('input#input_title').fill('A title')
  await form.locator('input#input_due').fill('2026-12-01T10:00:00Z')
  await form.getByRole('button', { name: 'Add to tags' }).click()
  await form.locator('input#input_tags_0').fill('red')
  await form.locator('select#input_priority').selectOption({ label: 'high' })
  await form.locator('input#input_urgent').check()
  await form.getByRole('button', { name: 'JSON' }).click()
  t.same(JSON.parse(await tab.locator('textarea#inputjson').inputValue()),
    { title: 'A title', priority: 'high', count: 2, urgent: true, due: '2026-12-01T10:00:00Z', tags: ['red'], address: { city: 'Lyon' } }, 'the JSON view holds every field')
  await tab.locator('textarea#inputjson').fill('{"title": "A title", "priority": "low", "count": 0, "urgent": false, "address": {"city": "Paris"}, "nope": 1}')
  await form.getByRole('button', { name: 'Start run' }).click()
  const problems = form.locator('ul.invalid')
  await problems.waitFor()
  t.match(await problems.textContent(), /\/count.*must be 1 or more/, 'the JSON view lists what the validator found')
  t.match(await problems.textContent(), /\/nope.*is not an allowed property/, 'including an unknown property')
  await tab.locator('textarea#inputjson').fill('{"title": ')
  t.ok(await form.getByRole('button', { name: 'Form' }).isDisabled(), 'text that is not JSON keeps the JSON view open')
  await tab.locator('textarea#inputjson').fill('{"title": "T2", "priority": "low", "count": 3, "urgent": false, "address": {"city": "Paris"}}')
  await form.getByRole('button', { name: 'Form' }).click()
  t.equal(await form.locator('select#input_priority option:checked').textContent(), 'low', 'the form shows what the JSON view wrote')
  t.equal(await form.locator('input#input_address_city').inputValue(), 'Paris', 'nested fields too')

  // ui/schema.js itself, as the page loads it: nothing entered is null, which "any value" takes.
  const checks = await tab.evaluate(async () => {
    const schema = await import('/ui/schema.js' as string)
    return {
      anyEmpty: schema.validate({}, undefined),
      objectEmpty: schema.validate({ type: 'object' }, undefined),
      refAndFormat: schema.validate({ $defs: { D: { type: 'string', format: 'email' } }, type: 'object', properties: { to: { $ref: '#/$defs/D' } } }, { to: 'nobody' }),
      sampled: schema.sample({ type: 'object', required: ['a', 'b', 'c'], properties: { a: { type: 'string' }, b: { type: 'boolean' }, c: { type: 'integer', default: 3 }, d: { type: 'string', examples: ['x'] } } })
    }
  })
  t.same(checks.anyEmpty, [], 'an empty "any value" fits (it is sent as null)')
  t.same(checks.objectEmpty, [{ path: '', message: 'is required' }], 'an empty object input does not')
  t.same(checks.refAndFormat, [{ path: '/to', message: 'must be an email' }], 'a $ref is followed and its format checked')
  t.same(checks.sampled, { b: false, c: 3, d: 'x' }, 'a form opens with defaults, examples and unticked boxes; a required text without one stays empty')
  t.same(pageErrors.get(tab), [], 'no JavaScript error on the page')
})

t.test('approval: signal, query and update from forms, the messages in the steps list and on the timeline', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const run = await startRun(app, { workflowName: 'approval', workflowId: uniqueId('forms-approval'), input: { label: 'order 7' } })
  const tab = await open(t, base, `#/run/${encodeURIComponent(run.workflowId)}/${run.runId}`)

  const relabel = tab.locator('form.handler[data-handler="update-relabel"]')
  await relabel.locator('input#update-relabel-_label').fill('order 7 (rush)')
  await relabel.getByRole('button', { name: 'Update' }).click()
  await relabel.locator('.handler-result', { hasText: '"previous": "order 7"' }).waitFor()
  // A validator's refusal is not in the history: the page lists the one it got.
  await relabel.getByRole('button', { name: 'JSON' }).click()
  await relabel.locator('textarea').fill('{"label": " "}')
  await relabel.getByRole('button', { name: 'Update' }).click()
  await relabel.locator('.problem').waitFor()
  await tab.locator('.step-list .note[data-note="update"][data-status="rejected"]').waitFor()
  await tab.locator('.step-list .note[data-note="update"][data-status="completed"]').waitFor()
  t.pass('the update completed and the one refused are listed')

  const state = tab.locator('form.handler[data-handler="query-state"]')
  await state.getByRole('button', { name: 'Query' }).click()
  await state.locator('.handler-result', { hasText: 'order 7 (rush)' }).waitFor()
  t.match(await state.locator('.handler-result').textContent(), /Answer as of/, 'a query answer says when it was asked')
  t.equal(await state.locator('.handler-result').getAttribute('data-stale'), 'false', 'and is current')
  await tab.locator('.step-list .note[data-note="query"][data-name="state"]').waitFor()

  const approve = tab.locator('form.handler[data-handler="signal-approve"]')
  await approve.getByRole('button', { name: 'Signal' }).click()
  await approve.locator('.field-error', { hasText: 'by is required' }).waitFor()
  t.pass('a signal without its required field is not sent')
  await approve.locator('input#signal-approve-_by').fill('Ada')
  await approve.getByRole('button', { name: 'Signal' }).click()
  await tab.locator('.run-head .status[data-status="completed"]').waitFor()
  await tab.locator('.step-list .note[data-note="signal"][data-name="approve"]').waitFor()
  await state.locator('.handler-result[data-stale="true"]').waitFor()
  t.pass('the query answer is marked stale once the run moved on')
  await tab.locator('.timeline .row-mark[data-mark="signal"][data-name="approve"]').waitFor()
  await tab.locator('.timeline .row-mark[data-mark="update"][data-name="relabel"][data-status="completed"]').waitFor()
  await tab.locator('.timeline .row-mark[data-mark="update"][data-name="relabel"][data-status="rejected"]').waitFor()
  await tab.locator('.timeline .row-mark[data-mark="query"][data-name="state"]').waitFor()
  t.pass('the signal, the updates and the query are on the timeline')
  t.equal(await tab.locator('text=No steps yet').count(), 0, 'a run with messages never says it has no steps')
  t.same(pageErrors.get(tab), [], 'no JavaScript error on the page')
})

t.test('sleepy: durable timers in the steps list and on the timeline', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const run = await startRun(app, { workflowName: 'sleepy', workflowId: uniqueId('forms-sleepy'), input: { steps: 2, delayMs: 10_000 } })
  // A 10 s timer: the page is open well before it fires, also on a loaded machine.
  const tab = await open(t, base, `#/run/${encodeURIComponent(run.workflowId)}/${run.runId}`)
  const sleeping = tab.locator('.step-list .note[data-note="timer"][data-status="sleeping"]')
  await sleeping.waitFor()
  t.match(await sleeping.textContent(), /sleeping until \d{1,2}:\d{2}/, 'an open timer says until when')
  await tab.locator('.step-list .note[data-note="timer"][data-status="fired"]').waitFor()
  t.match(await tab.locator('.step-list .note[data-note="timer"]').textContent(), /slept 10(\.\d+)? s/, 'a fired one how long it slept')
  await tab.locator('.run-head .status[data-status="completed"]').waitFor()
  await tab.locator('.timeline .row-mark[data-mark="timer"]').waitFor()
  t.pass('the timer is on the timeline')
  t.same(pageErrors.get(tab), [], 'no JavaScript error on the page')
})

t.test('on a phone (390×844): a tapped workflow\'s form comes into view, and a run starts from it', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const tab = await open(t, base, '#/catalog', { width: 390, height: 844 })
  await pickWorkflow(tab, 'triage')
  const field = tab.locator('form.start input#input_text')
  await tab.waitForFunction(() => {
    const box = (globalThis as any).document.querySelector('.workflow-detail')?.getBoundingClientRect()
    return box !== undefined && box.top >= -1 && box.top < 844
  })
  t.pass('the form is scrolled into view')
  await field.fill('Refund my payment please')
  await tab.getByRole('button', { name: 'Start run' }).click()
  await tab.locator('pre[aria-label="Output"]', { hasText: 'billing' }).waitFor()
  t.equal(await tab.locator('.step-list .step[data-step]').count(), 2, 'its steps are listed')
  t.ok(await tab.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= 390), 'and the run page does not scroll sideways')
  t.same(pageErrors.get(tab), [], 'no JavaScript error on the page')
})
