/**
 * `npm run bench -- inspector`: the run inspector's budget (docs/inspector.md): its JavaScript as
 * served, compressed, and in headless Chromium the time to a live run's first step and to render
 * long lists, with the longest main-thread task (the method: the section's note below). Never asserted.
 */
import { readdirSync } from 'node:fs'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { fileURLToPath } from 'node:url'
import { chromium, type Page, type Route } from 'playwright-core'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { median, verdict } from './measure.js'
import { machineNote, writeSection } from './results.js'

const ROUNDS = Number(process.env.INSPECTOR_ROUNDS ?? 5)
const RUNS = Number(process.env.INSPECTOR_RUNS ?? 1000)
const STEPS = Number(process.env.INSPECTOR_STEPS ?? 200)
const BUDGET_BYTES = 150 * 1024
// Issue 53: within twice of what the page was before its forms, validator and timeline grew it.
const BEFORE = { gzipBytes: 25.8 * 1024, firstLiveStepMs: 500 }
// A main-thread task longer than this is what makes a tab feel frozen (the Long Tasks API's threshold).
const LONG_TASK_MS = 50
const machine = machineNote()

// The page reads catalogs and runs only through its interceptions below; no engine is needed.
const app = await buildApp({ config: loadConfig({ TEMPORAL_ADDRESS: '127.0.0.1:1', LOG_LEVEL: 'silent', SERVICE_UI_ENABLED: 'true' }) })
const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')

// 1. The JavaScript the page loads, as the API serves it.
const uiDir = fileURLToPath(new URL('../ui/', import.meta.url))
const served = [...readdirSync(uiDir).filter((f) => f.endsWith('.js')), ...['preact.mjs', 'htm.mjs', 'client.mjs', 'core.mjs', 'json-schema.mjs'].map((v) => `vendor/${v}`)]
const files: Array<{ name: string, body: Buffer }> = []
for (const name of served) files.push({ name, body: (await app.inject({ method: 'GET', url: `/ui/${name}` })).rawPayload })
const raw = files.reduce((n, f) => n + f.body.length, 0)
const gzip = files.reduce((n, f) => n + gzipSync(f.body, { level: 9 }).length, 0)
const brotli = files.reduce((n, f) => n + brotliCompressSync(f.body).length, 0)

// 2. Synthetic answers.
const now = Date.now()
const iso = (ms: number) => new Date(ms).toISOString()
const statuses = ['completed', 'failed', 'running', 'canceled', 'terminated']
const runs = Array.from({ length: RUNS }, (_, i) => {
  const startTime = iso(now - i * 1000)
  const closeTime = i % 5 === 2 ? null : iso(now - i * 1000 + 500)
  const ids = { workflowId: `bench-run-${i}`, runId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` }
  const rest = { historyLength: 11, parentWorkflowId: null, startedBy: null, workersPolling: true, scheduleId: null, scheduledAt: null, delayedUntil: null }
  return { ...ids, workflowName: i % 3 === 0 ? 'sleepy' : 'hello', catalog: 'main', status: statuses[i % statuses.length], startTime, closeTime, ...rest }
})
const start = now - STEPS * 1000
const nodes = Array.from({ length: STEPS }, (_, i) => {
  const count = 1 + (i % 3)
  const attempts = Array.from({ length: count }, (_, a) => {
    const failed = a + 1 < count
    const error = failed ? { name: 'TransientError', message: `Attempt ${a + 1} fails on purpose`, retryable: true, cause: null } : null
    return { attempt: a + 1, status: failed ? 'failed' : 'completed', startTime: iso(start + i * 1000 + a * 300), endTime: iso(start + i * 1000 + a * 300 + 200), error }
  })
  const last = attempts[attempts.length - 1]!
  const call = { id: `bench/${i + 1}`, kind: 'step', name: `step-${i + 1}`, type: `bench#step-${i + 1}`, phase: 'run', status: 'completed' }
  return { ...call, scheduledTime: iso(start + i * 1000), startTime: last.startTime, endTime: last.endTime, input: { i }, output: { i }, error: null, attempts, evaluation: null, child: null }
})
const benchRun = { workflowId: 'bench-timeline', runId: '00000000-0000-4000-8000-000000000200' }
const workflow = { id: benchRun.runId, name: 'bench', ...benchRun, catalog: 'main', parent: null, previousRunId: null, nextRunId: null, status: 'completed', startTime: iso(start), closeTime: iso(now), input: {}, output: {}, error: null }
// A live run: its history stream delivers one step as soon as the page asks.
const liveRun = { workflowId: 'bench-live', runId: '00000000-0000-4000-8000-000000000001' }
const liveWorkflow = { ...workflow, ...liveRun, id: liveRun.runId, status: 'running', closeTime: null, output: null }
const liveEvents = [
  { eventId: '5', eventType: 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED', eventTime: iso(now), activityTaskScheduledEventAttributes: { activityId: '1', activityType: { name: 'bench#fetch' } } },
  { eventId: '6', eventType: 'EVENT_TYPE_ACTIVITY_TASK_STARTED', eventTime: iso(now), activityTaskStartedEventAttributes: { scheduledEventId: '5', attempt: 1 } }
]
const answers: Array<[RegExp, unknown]> = [
  [/bench-live\/.*\/trace-log$/, { ...liveRun, source: 'engine', location: null, partial: true, trace: { version: 1, workflow: liveWorkflow, nodes: [], evaluations: [] } }],
  [/bench-live\/.*\/status$/, { ...runs[0], ...liveRun, workflowName: 'bench', status: 'running', closeTime: null }],
  [/\/workflow\/runs\?/, { runs, nextPageToken: null }],
  [/\/trace-log$/, { ...benchRun, source: 'local', location: '/bench', partial: false, trace: { version: 1, workflow, nodes, evaluations: [] } }],
  [/\/status$/, { ...runs[0], ...benchRun, workflowName: 'bench', status: 'completed', closeTime: iso(now) }],
  [/\/input$/, { ...benchRun, input: {} }],
  [/\/result$/, { ...benchRun, status: 'completed', output: {}, error: null, errorDetails: null }],
  [/\/workflow\/catalog/, { catalog: 'main', publishedAt: iso(now), workers: { polling: true, pollers: 1, lastPollTime: iso(now) }, workflows: [] }]
]

async function answer (route: Route): Promise<void> {
  const url = route.request().url()
  if (url.includes('bench-live') && url.includes('/history/stream')) {
    await route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: `retry: 600000\nid: 6\nevent: history\ndata: ${JSON.stringify(liveEvents)}\n\n` })
    return
  }
  if (url.includes('/stream')) {
    // A stream that has nothing to say: the page stays connected.
    await route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: 'retry: 600000\n\n' })
    return
  }
  const found = answers.find(([pattern]) => pattern.test(new URL(url).pathname + new URL(url).search))
  await route.fulfill(found ? { status: 200, contentType: 'application/json', body: JSON.stringify(found[1]) } : { status: 404, contentType: 'application/json', body: '{"error":"RouteNotFoundError","message":"bench"}' })
}

/** Navigates by hash and waits for `count` elements; the time and the longest main-thread task meanwhile. */
async function measure (page: Page, hash: string, selector: string, count: number): Promise<{ ms: number, longestTaskMs: number }> {
  await page.evaluate(() => { (globalThis as any).location.hash = '#/catalog' })
  await page.locator('.catalog').waitFor()
  return await page.evaluate(async ({ hash, selector, count }) => {
    const w = globalThis as any
    const tasks: number[] = []
    const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) tasks.push(e.duration) })
    observer.observe({ type: 'longtask' as any })
    const t0 = performance.now()
    w.location.hash = hash
    // No named function in here: tsx would wrap it in a helper the page does not have.
    while (w.document.querySelectorAll(selector).length < count) await new Promise((resolve) => w.requestAnimationFrame(resolve))
    // One more frame: the rows are laid out and painted.
    await new Promise((resolve) => w.requestAnimationFrame(resolve))
    const ms = performance.now() - t0
    await new Promise((resolve) => setTimeout(resolve, 50))
    observer.disconnect()
    return { ms, longestTaskMs: Math.max(0, ...tasks) }
  }, { hash, selector, count })
}

/** From a fresh load of a live run's page (new context: nothing cached) to its first step in the list, in ms since navigation start. */
async function firstLiveStep (): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  try {
    const page = await context.newPage()
    await page.route(/\/workflow\//, answer)
    // The bench's own observer, not the page's: it marks the moment the first step is in the document.
    await page.addInitScript(() => {
      const w = globalThis as any
      const observer = new w.MutationObserver(() => {
        if (w.document.querySelector('.step[data-step]')) {
          w.performance.mark('first-live-step')
          observer.disconnect()
        }
      })
      observer.observe(w.document, { childList: true, subtree: true })
    })
    await page.goto(`${base}/ui/#/run/${liveRun.workflowId}/${liveRun.runId}`)
    await page.locator('.step[data-step="fetch"]').waitFor()
    return await page.evaluate(() => {
      const w = globalThis as any
      return w.performance.getEntriesByName('first-live-step')[0]?.startTime ?? w.performance.now()
    })
  } finally {
    await context.close()
  }
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] })
const results: Record<'list' | 'timeline', Array<{ ms: number, longestTaskMs: number }>> = { list: [], timeline: [] }
const liveStep: number[] = []
try {
  for (let round = 0; round < ROUNDS; round++) liveStep.push(await firstLiveStep())
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  await page.route(/\/workflow\//, answer)
  await page.goto(`${base}/ui/#/catalog`)
  for (let round = 0; round < ROUNDS; round++) {
    results.list.push(await measure(page, `#/runs?pageSize=${RUNS}`, '.runs-table tbody tr', RUNS))
    results.timeline.push(await measure(page, `#/run/${benchRun.workflowId}/${benchRun.runId}`, '.timeline .row[data-node]', STEPS))
  }
} finally {
  await browser.close()
  await app.close()
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
const f0 = (v: number) => v.toFixed(0)
const longest = (r: Array<{ longestTaskMs: number }>) => median(r.map((x) => x.longestTaskMs))
const taskTarget = (label: string, r: Array<{ longestTaskMs: number }>) =>
  `| Longest task, ${label} (median) | ≤ ${LONG_TASK_MS} ms | ${f0(longest(r))} ms (worst round ${f0(Math.max(...r.map((x) => x.longestTaskMs)))} ms) | ${verdict(longest(r) <= LONG_TASK_MS)} |`
const row = (label: string, r: Array<{ ms: number, longestTaskMs: number }>) =>
  `| ${label} | ${f0(median(r.map((x) => x.ms)))} ms (${r.map((x) => f0(x.ms)).join(', ')}) | ${f0(median(r.map((x) => x.longestTaskMs)))} ms (${r.map((x) => f0(x.longestTaskMs)).join(', ')}) |`
writeSection('inspector', `## Run inspector: JavaScript budget and render time

${machine}
The page's JavaScript as the API serves it at \`/ui\` (${files.length} ES modules, Preact and htm included, no build step),
and ${ROUNDS} rounds in headless Debian Chromium (1280 × 900) of: load a live run's page in a fresh context (nothing cached)
and wait for its first step, which its history stream sends at once (time since navigation start: the page's modules,
its first API answers and the stream); open the runs list with ${RUNS} runs, open a run whose
trace has ${STEPS} steps (${nodes.reduce((n, s) => n + s.attempts.length, 0)} attempt bars). Time = from the hash change to the
frame after the last row is in the document; longest task = the longest main-thread task meanwhile (Long Tasks API; a
task over ${LONG_TASK_MS} ms is what makes a tab feel frozen; the API reports only such tasks, so 0 ms means none). Long lists are added a slice per frame (100 runs or
50 timeline rows; after the first, each slice is rendered in a task of its own after a frame and laid out by the next one;
slices already shown are not rendered again; ui/progressive.js), and rows out of view skip layout and paint (CSS content-visibility). The API serves the page; the answers to the page's API calls are
synthetic (request interception), so only the page's own work is measured.
The 25.8 KB before issue 53 was measured before the deployment and recovery views and the client's growth; the same
count of main just before issue 53's forms, validator and timeline (commit 91120c6, bundles not minified) was 49.5 KB.
Since then the bundles (client, core, the JSON Schema validator) are minified, and then the page's own modules too
(with source maps, which only developer tools load; not counted).

| Figure | Target | Measured | |
|---|---|---|---|
| JavaScript, gzip (level 9) | ≤ ${kb(BUDGET_BYTES)}, and ≤ 2 × ${kb(BEFORE.gzipBytes)} (before issue 53) | ${kb(gzip)} (brotli ${kb(brotli)}, uncompressed ${kb(raw)}) | ${verdict(gzip <= Math.min(BUDGET_BYTES, 2 * BEFORE.gzipBytes))} |
| First live step of a run page, fresh load (median) | ≤ 2 × ${f0(BEFORE.firstLiveStepMs)} ms | ${f0(median(liveStep))} ms (${liveStep.map(f0).join(', ')}) | ${verdict(median(liveStep) <= 2 * BEFORE.firstLiveStepMs)} |
${taskTarget(`${RUNS}-run list`, results.list)}
${taskTarget(`${STEPS}-step timeline`, results.timeline)}

| Render | Time, median (each round) | Longest task, median (each round) |
|---|---|---|
${row(`${RUNS}-run list`, results.list)}
${row(`${STEPS}-step timeline`, results.timeline)}

Reproduce: \`npm run bench -- inspector\` (INSPECTOR_ROUNDS, INSPECTOR_RUNS, INSPECTOR_STEPS).
`)
