/**
 * One viewer's trace reads never overlap (issue 49 item 5): the run page re-reads an open run's
 * trace-log at most once a second while events arrive; when a read takes longer than that (a
 * step retrying for days, a slow bucket: here the attempt records answer after 2.5 s, the one
 * fault injected), the next read waits for it instead of piling up, and the read after the run
 * closed still happens. Needs Debian's chromium at /usr/bin/chromium; never downloads one.
 */
import t from 'tap'
import { build } from './helpers/app.js'
import { launchChromium } from './helpers/browser.js'
import { uniqueId } from './helpers/history.js'

const WAIT = 120_000

t.test('a slow trace read is never overlapped by the next one from the same page', async (t) => {
  const app = await build(t)
  const base = (await app.listen({ port: 0, host: '127.0.0.1' })).replace(/\/$/, '')
  const store = app.traces!
  const real = store.readAttempts.bind(store)
  let reading = 0
  let most = 0
  let reads = 0
  store.readAttempts = async (...args: Parameters<typeof real>) => {
    reads++
    most = Math.max(most, ++reading)
    try {
      await new Promise((resolve) => setTimeout(resolve, 2500))
      return await real(...args)
    } finally {
      reading--
    }
  }
  const started = await app.inject({ method: 'POST', url: '/workflow/start', payload: { workflowName: 'sleepy', workflowId: uniqueId('trace-reads'), input: { steps: 16, delayMs: 500 } } })
  t.equal(started.statusCode, 200, started.body)
  const { workflowId, runId } = started.json()

  const browser = await launchChromium(t)
  const tab = await browser.newPage()
  tab.setDefaultTimeout(WAIT)
  await tab.goto(`${base}/ui/#/run/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}`)
  await tab.locator('.steps .live[data-live="ended"]').waitFor()
  // The read after the close comes once the one in flight is back.
  const settled = () => reading === 0
  for (let i = 0; i < 100 && !settled(); i++) await new Promise((resolve) => setTimeout(resolve, 100))
  t.ok(reads >= 2, `the page read the trace ${reads} times while the run moved`)
  t.equal(most, 1, 'never two reads at once')
})
