/**
 * The inspector's accessibility and phone layout (docs/inspector.md, "Phone and accessibility"),
 * in Debian's Chromium against the real API, engine and worker: axe-core (the npm package, pinned)
 * reports no WCAG 2.x A or AA violation on any view (the key prompt, the catalog with its form,
 * also showing errors, the runs list, a run with messages, a failed run with its recovery panel,
 * the eval list and report, the deployments) at 1280×800 and at 390×844; at 390×844 the page does
 * not scroll sideways, the runs table is a list of cards with no header row over them, no status
 * badge wraps, and no word of the runs or of the eval report is broken across lines.
 * axe is injected as a script tag, which the page's CSP refuses: this test's browser context
 * bypasses the CSP (Playwright's bypassCSP); test/browser-inspector.test.ts checks the CSP itself.
 */
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { Browser, Page } from 'playwright-core'
import { build } from './helpers/app.js'
import { launchChromium } from './helpers/browser.js'
import { uniqueId } from './helpers/history.js'
import { eventually } from './helpers/workflows.js'
import { flowport } from './helpers/flowport-cli.js'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const KEY = 'a11y-test-key-0123456789abcdef'
const WAIT = 90_000
const AXE = fileURLToPath(import.meta.resolve('axe-core/axe.min.js'))
const SIZES = [{ width: 1280, height: 800 }, { width: 390, height: 844 }]
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']

/** axe's violations of the WCAG 2.x A and AA rules on the page as it is, as `rule: target…` lines. */
async function violations (tab: Page): Promise<string[]> {
  if (!await tab.evaluate(() => 'axe' in globalThis)) await tab.addScriptTag({ path: AXE })
  return await tab.evaluate(async (tags) => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { runOnly: { type: 'tag', values: tags } })
    return result.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).slice(0, 5).join(', ')}`)
  }, WCAG_AA)
}

/** Words (of the elements `selector` matches) that the browser broke across lines. */
async function brokenWords (tab: Page, selector: string): Promise<string[]> {
  return await tab.locator(selector).evaluateAll((cells) => {
    const doc = (globalThis as any).document
    const broken: string[] = []
    for (const cell of cells) {
      const walker = doc.createTreeWalker(cell, 4)
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text: string = node.textContent
        for (const match of text.matchAll(/\S+/g)) {
          const range = doc.createRange()
          range.setStart(node, match.index)
          range.setEnd(node, match.index + match[0].length)
          const lines = new Set([...range.getClientRects()].map((r: any) => Math.round(r.top)))
          if (lines.size > 1) broken.push(match[0])
        }
      }
    }
    return broken
  })
}

async function page (browser: Browser, size: { width: number, height: number }, base: string): Promise<Page> {
  const context = await browser.newContext({ viewport: size, bypassCSP: true })
  const tab = await context.newPage()
  tab.setDefaultTimeout(WAIT)
  await tab.goto(`${base}/ui/`)
  return tab
}

t.test('no WCAG A/AA violation on any view, at 1280×800 and 390×844; phone layout', async (t) => {
  const app = await build(t, { SERVICE_API_AUTH_TOKEN: KEY })
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const auth = { authorization: `Bearer ${KEY}` }
  const inject = async (method: 'GET' | 'POST', url: string, payload?: unknown) => await app.inject({ method, url, headers: auth, payload: payload as any })

  // What the views show: a completed run with a signal and an update, a failed one, an eval run.
  const approval = (await inject('POST', '/workflow/start', { workflowName: 'approval', workflowId: uniqueId('a11y-approval'), input: { label: 'a11y' } })).json()
  await inject('POST', `/workflow/${approval.workflowId}/update/relabel`, { payload: { label: 'a11y (checked)' } })
  await inject('POST', `/workflow/${approval.workflowId}/signal/approve`, { payload: { by: 'Ada' } })
  const failed = (await inject('POST', '/workflow/run', { workflowName: 'explode', workflowId: uniqueId('a11y-explode'), input: { message: 'boom' } })).json()
  // Runs with two-letter ids: their links are small targets (WCAG 2.2 target size), between rows of links.
  for (const workflowId of ['a1', 'b2', 'c3']) await inject('POST', '/workflow/run', { workflowName: 'hello', workflowId, input: { name: 'short' } })
  // A catalog with a long id, as a full suite publishes many: the catalog picker must still fit a phone.
  const longCatalog = join(mkdtempSync(join(tmpdir(), 'flowport-a11y-')), 'catalog.yaml')
  writeFileSync(longCatalog, `catalog: ${uniqueId('a11y-a-catalog-with-a-long-declared-id')}\nworkflows:\n  - name: greet\n`)
  t.equal((await flowport(['catalog', 'publish', longCatalog])).code, 0, 'a catalog with a long id is published')
  const ready = await eventually(async () => (await inject('GET', '/ready')).json(), (r) => r.catalogs?.some((c: { catalog?: string }) => c.catalog?.includes('a-long-declared-id')), 120)
  t.ok(ready.catalogs?.some((c: { catalog?: string }) => c.catalog?.includes('a-long-declared-id')), '/ready lists it')
  const evalStart = await inject('POST', '/evals', { workflowName: 'triage' })
  t.equal(evalStart.statusCode, 202, 'an eval run started')
  const evalRun = evalStart.json() as { evalId: string }
  await eventually(async () => (await inject('GET', `/evals/${encodeURIComponent(evalRun.evalId)}`)).json(), (r) => r.status !== 'running', 240)
  // The list comes from the engine's visibility store, a moment behind.
  const listed = await eventually(async () => (await inject('GET', '/evals?workflowName=triage')).json(), (r) => r.evals?.some((e: { evalId: string }) => e.evalId === evalRun.evalId), 120)
  t.ok(listed.evals?.some((e: { evalId: string }) => e.evalId === evalRun.evalId), 'the eval run is listed')
  const closed = await eventually(async () => (await inject('GET', `/workflow/${approval.workflowId}/status`)).json(), (s) => s.status === 'completed')
  t.equal(closed.status, 'completed', 'the approval run took its update and signal')

  const run = (id: { workflowId: string, runId: string }) => `#/run/${encodeURIComponent(id.workflowId)}/${id.runId}`
  const views: Array<{ name: string, hash: string, ready: string, then?: (tab: Page) => Promise<void> }> = [
    { name: 'catalog', hash: '#/catalog?workflow=triage', ready: 'form.start input#input_text' },
    {
      name: 'catalog, a form showing its errors',
      hash: '#/catalog?workflow=triage',
      ready: 'form.start input#input_text',
      then: async (tab) => {
        await tab.getByRole('button', { name: 'Start run' }).click()
        await tab.locator('form.start .field-error').waitFor()
      }
    },
    { name: 'runs', hash: '#/runs', ready: `.runs-table tr[data-run-id="${approval.runId}"]` },
    { name: 'a run with messages', hash: run(approval), ready: '.timeline .row-mark[data-mark="signal"]' },
    { name: 'a failed run', hash: run(failed), ready: '.recovery' },
    { name: 'eval runs', hash: '#/evals/triage', ready: 'table.evals-table tbody tr' },
    { name: 'an eval report', hash: `#/eval/${encodeURIComponent(evalRun.evalId)}`, ready: 'table.eval-report tbody tr' },
    { name: 'deployments', hash: '#/deployments', ready: 'section h2' }
  ]

  const browser = await launchChromium(t)
  for (const size of SIZES) {
    const at = `${size.width}×${size.height}`
    const tab = await page(browser, size, base)
    await tab.locator('form.token input[name="token"]').waitFor()
    t.same(await violations(tab), [], `${at}, the key prompt: no violation`)
    if (size === SIZES[0]) {
      // axe does find what it looks for: an image without a text alternative.
      await tab.evaluate(() => { (globalThis as any).document.body.append((globalThis as any).document.createElement('img')) })
      t.match(await violations(tab), [/^image-alt: /], 'axe reports a violation planted in the page')
      await tab.evaluate(() => { (globalThis as any).document.querySelector('body > img').remove() })
    }
    await tab.locator('form.token input[name="token"]').fill(KEY)
    await tab.getByRole('button', { name: 'Use this key' }).click()
    for (const view of views) {
      await tab.goto(`${base}/ui/${view.hash}`)
      await tab.locator(view.ready).first().waitFor().catch(async (error: Error) => {
        throw new Error(`${at}, ${view.name}: ${error.message}; the page shows: ${await tab.locator('main').textContent()}`)
      })
      await view.then?.(tab)
      t.same(await violations(tab), [], `${at}, ${view.name}: no violation`)
      if (size.width < 640) {
        const overflow = await tab.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth)
        const wide = overflow <= 0 ? [] : await tab.evaluate(() => [...(globalThis as any).document.querySelectorAll('body *')].filter((e: any) => e.getBoundingClientRect().right > (globalThis as any).innerWidth + 1 && e.children.length === 0).slice(0, 5).map((e: any) => `${e.tagName}.${e.className}: ${e.textContent.slice(0, 80)}`))
        t.ok(overflow <= 0, `${at}, ${view.name}: the page does not scroll sideways (${overflow} px)${wide.length === 0 ? '' : `: ${wide.join(' | ')}`}`)
      }
    }

    if (size.width < 640) {
      await tab.goto(`${base}/ui/#/runs`)
      const card = tab.locator(`.runs-table tr[data-run-id="${approval.runId}"]`)
      await card.waitFor()
      t.equal(await card.evaluate((tr) => (globalThis as any).getComputedStyle(tr).display), 'block', 'a run is a card')
      t.equal(await tab.locator('.runs-table thead').evaluate((el) => el.getBoundingClientRect().height), 1, 'the header row is left to screen readers, not drawn over the cards')
      t.match(await card.locator('td').first().evaluate((td) => (globalThis as any).getComputedStyle(td, '::before').content), /Workflow id/, 'each value is led by its column\'s name')
      const badges = await tab.locator('.runs-table .status').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height))
      t.ok(badges.length > 0 && badges.every((h) => h < 24), `no status badge wraps (heights ${[...new Set(badges)].join(', ')} px)`)
      t.same(await brokenWords(tab, '.runs-table td:not(:first-child)'), [], 'no word of the cards is broken across lines')
      await tab.goto(`${base}/ui/#/eval/${encodeURIComponent(evalRun.evalId)}`)
      await tab.locator('table.eval-report tbody tr').first().waitFor()
      t.same(await brokenWords(tab, '.eval-report td, .eval-report th'), [], 'the eval report breaks no word across lines')
    }
  }
})
