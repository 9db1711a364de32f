/**
 * The inspector's eval pages (docs/inspector.md, docs/evals.md) in Chromium: the
 * catalog links a workflow's eval runs; the list shows them with their verdicts; *Run eval* starts
 * one and opens it; its report is a table of cases and evaluators, each case linked to its run.
 * Takes a screenshot of the report into a temporary directory; with FLOWPORT_UPDATE_SCREENSHOT=1
 * (`npm run screenshot`) into docs/evals.png, the one docs/evals.md shows.
 * Needs Debian's chromium at /usr/bin/chromium (`apt-get install -y chromium`); never downloads one.
 */
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from './helpers/app.js'
import { launchChromium } from './helpers/browser.js'
import { eventually } from './helpers/workflows.js'

const WAIT = 90_000
const DOCS_SCREENSHOT = fileURLToPath(new URL('../docs/evals.png', import.meta.url))

function screenshotPath (t: Test): string {
  if (process.env.FLOWPORT_UPDATE_SCREENSHOT === '1') return DOCS_SCREENSHOT
  const dir = mkdtempSync(join(tmpdir(), 'flowport-evals-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  return join(dir, 'evals.png')
}

t.test('eval runs of a workflow, Run eval, and the report with the cases\' runs linked', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  // One finished eval run to list (and for the next one to be compared with).
  const started = await app.inject({ method: 'POST', url: '/evals', payload: { workflowName: 'triage' } })
  t.equal(started.statusCode, 202, started.body)
  const { evalId } = started.json() as { evalId: string }
  const done = await eventually(async () => (await app.inject({ method: 'GET', url: `/evals/${encodeURIComponent(evalId)}` })).json(), (r) => r.status !== 'running', 240)
  t.equal(done.status, 'completed')

  const browser = await launchChromium(t)
  const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  tab.setDefaultTimeout(WAIT)
  await tab.goto(`${base}/ui/#/catalog`)
  t.equal(await tab.getByRole('button', { name: /^triage\b/ }).locator('.badge-eval').count(), 1, 'the catalog list marks a workflow with an eval')
  await tab.getByRole('button', { name: /^triage\b/ }).click()
  await tab.locator('.workflow-links').getByRole('link', { name: 'Eval runs', exact: true }).click()
  const listed = tab.locator('table.evals-table tbody tr', { hasText: evalId })
  await listed.waitFor()
  t.equal(await listed.locator('.verdict').textContent(), 'fail', 'the list shows the eval run\'s verdict')
  t.match(await listed.textContent(), /1 pass, 1 partial, 1 fail of 3/, 'and its totals')

  await tab.getByRole('button', { name: 'Run eval' }).click()
  await tab.waitForURL(/#\/eval\/eval%3Atriage%3A/)
  const report = tab.locator('table.eval-report')
  await report.waitFor()
  t.equal(await report.locator('tbody tr').count(), 9, 'one row per case and evaluator')
  t.equal(await report.locator('tr[data-case="feature_request"] .verdict').first().textContent(), 'fail', 'the failing case')
  t.match(await report.locator('tr[data-case="feature_request"]').first().textContent(), /categoryMatches.*required.*false.*expected feature, got bug/s, 'with the evaluator that failed it and why')
  t.match(await tab.locator('.comparison').textContent(), /better none; worse none/, 'compared with the previous eval run')
  await tab.locator('.comparison a').waitFor()
  t.equal(await tab.locator('.comparison a').getAttribute('href'), `#/eval/${encodeURIComponent(evalId)}`, 'which it links')

  const screenshot = screenshotPath(t)
  await tab.screenshot({ path: screenshot, fullPage: true })
  t.ok(statSync(screenshot).size > 0, 'a screenshot of the report')

  // A case's name links to its run: a run of the workflow like any other.
  const caseLink = report.locator('tr[data-case="crash_report"] a')
  t.match(await caseLink.getAttribute('href'), /^#\/run\/eval%3Atriage%3A[^/]+%3Acrash_report\/[0-9a-f-]{36}$/)
  await caseLink.click()
  await tab.locator('.run-head .status[data-status="completed"]').waitFor()
  await tab.locator('pre[aria-label="Output"]', { hasText: '"category": "bug"' }).waitFor()
  t.pass('the case\'s run page shows its output')
})
