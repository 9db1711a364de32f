/**
 * A run whose workflow task keeps failing is not merely "running": a deploy changes the workflow
 * code (test/fixtures/drift v1 → v2 calls the steps in another order), a reset makes the new code
 * replay the old history, the replay fails, and the status, the live stream, the trace-log and the
 * inspector's run page (in Debian's chromium, /usr/bin/chromium) say so.
 * A reset from the start then lets the new code run from scratch.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import type { Test } from 'tap'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, eventually, waitClosed } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'
import { openSse } from './helpers/history.js'
import { launchChromium } from './helpers/browser.js'

const deploy = async (t: Test, catalog: string, version: 'v1' | 'v2') => {
  const worker = spawnWorker(t, { SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: resolve(`test/fixtures/drift/${version}`) }, process.cwd())
  await worker.waitFor(`Worker polling catalog ${catalog}`)
}

const status = (t: Test, app: App, id: string, rid: string) =>
  call(t, app, { method: 'GET', url: `/workflow/${id}/runs/${rid}/status`, route: '/workflow/{id}/runs/{rid}/status' })

const runHash = (workflowId: string, runId: string) => `#/run/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}`

t.test('a reset onto code that no longer replays shows attention on the status, the stream, the trace and the inspector', async (t) => {
  const catalog = `drift-${randomUUID()}`
  const workflowId = `drifting-${randomUUID()}`
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })

  let runId = ''
  await t.test('version 1 runs a, then b', async (t) => {
    await deploy(t, catalog, 'v1')
    const started = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'drifting', workflowId, input: {} } })
    runId = started.body.runId
    t.equal(await waitClosed(app, workflowId, runId), 'COMPLETED')
    t.match((await status(t, app, workflowId, runId)).body, { attention: null })
  }) // its worker is stopped at the end of the subtest

  await deploy(t, catalog, 'v2')
  const reset = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/reset`, route: '/workflow/{id}/reset', payload: { from: { step: 'b' } } })
  t.equal(reset.status, 200)
  const stuck = reset.body.runId as string

  const seen = await eventually(async () => (await status(t, app, workflowId, stuck)).body, (body) => body.attention !== null, 120)
  t.match(seen, { status: 'running', workersPolling: true, attention: { kind: 'workflowTaskFailing', message: /nondetermin/i, attempts: Number } })
  t.ok(seen.attention.attempts >= 2, 'the engine retried the task')
  t.match(seen.attention.remedy, /^Deploy a fix .*reset the run from `a`/, 'it says what to do, naming the step the run called last')

  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const sse = await openSse(`${base}/workflow/${workflowId}/runs/${stuck}/history/stream`)
  const [first] = await sse.until((frames) => frames.length > 0)
  sse.close()
  t.equal(first.event, 'workflow')
  t.match(JSON.parse(first.data), { runId: stuck, attention: { kind: 'workflowTaskFailing' } }, 'the stream\'s workflow event says so')

  const log = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/runs/${stuck}/trace-log`, route: '/workflow/{id}/runs/{rid}/trace-log' })
  t.match(log.body, { source: 'engine', partial: true })
  t.match(log.body.trace.workflow, { status: 'running', resetFrom: { runId }, workflowTaskFailure: { message: /nondetermin/i } }, 'the trace says so')
  t.match(log.body, { attention: { kind: 'workflowTaskFailing', message: /nondetermin/i, attempts: Number } }, 'the trace-log carries the status\'s attention')

  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  tab.setDefaultTimeout(90_000)
  await tab.goto(`${base}/ui/${runHash(workflowId, stuck)}`)
  await tab.locator('.attention[data-attention="workflowTaskFailing"]', { hasText: /nondetermin/i }).waitFor()
  t.equal(await tab.locator('.run-head .status').getAttribute('data-status'), 'running', 'the page marks the running run as stuck')
  t.equal(await tab.locator('.facts .reset-from a').getAttribute('href'), runHash(workflowId, runId), 'and links the run it was reset from')
  t.match(await tab.locator('.facts .workers-polling').textContent(), /^yes$/, 'a worker polls its catalog')

  t.match(await tab.locator('.recovery .remedy').textContent(), /reset the run from `a`/, 'the page says what to do')
  await tab.locator('select[name="resetFrom"]').selectOption('start')
  await tab.getByRole('button', { name: 'Reset…' }).click()
  t.match(await tab.locator('.recovery .consequence').textContent(), /runs everything again.*This run is terminated/s, 'what a reset of an open run does')
  await tab.getByRole('button', { name: 'Yes, reset' }).click()
  const newRun = tab.locator('.recovery-answer a.new-run')
  await newRun.waitFor()
  const healed = { body: { runId: decodeURIComponent((await newRun.getAttribute('href')) ?? '').split('/').at(-1)! } }
  t.not(healed.body.runId, stuck, 'the stuck run is reset from the page')
  t.equal(await waitClosed(app, workflowId, healed.body.runId), 'COMPLETED')
  const result = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/result`, route: '/workflow/{id}/result' })
  t.match(result.body, { runId: healed.body.runId, output: { steps: ['b', 'a'] } }, 'version 2 ran from the start')
  t.match((await status(t, app, workflowId, stuck)).body, { status: 'terminated', resetTo: healed.body.runId, attention: null })
  const closedLog = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/runs/${stuck}/trace-log`, route: '/workflow/{id}/runs/{rid}/trace-log' })
  t.match(closedLog.body, { attention: null }, 'a closed run\'s trace-log has no attention')
  const after = await browser.newPage()
  after.setDefaultTimeout(90_000)
  await after.goto(`${base}/ui/${runHash(workflowId, stuck)}`)
  await after.locator('.run-head .status[data-status="terminated"]').waitFor()
  t.equal(await after.locator('.facts .reset-to a').getAttribute('href'), runHash(workflowId, healed.body.runId), 'the page links the run the reset made')
  t.equal(await after.locator('.attention').count(), 0, 'and no longer marks it stuck')
})
