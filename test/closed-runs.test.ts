import t, { type Test } from 'tap'
// @temporalio/proto is CommonJS: its named exports are not visible to ESM.
import protoRoot from '@temporalio/proto'
import { randomUUID } from 'node:crypto'
import { ClosedRuns } from '../plugins/app/runs/closed-runs.js'
import { SHORT_HISTORY_EVENTS } from '../plugins/app/engine/runs/history.js'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, eventually, firstTaskCompleted, newId, start, waitClosed } from './helpers/workflows.js'

const { HistoryEventFilterType } = protoRoot.temporal.api.enums.v1

const read = (what: 'status' | 'result' | 'input' | 'trace-log', id: string, rid?: string) => rid === undefined
  ? { method: 'GET' as const, url: `/workflow/${id}/${what}`, route: `/workflow/{id}/${what}` }
  : { method: 'GET' as const, url: `/workflow/${id}/runs/${rid}/${what}`, route: `/workflow/{id}/runs/{rid}/${what}` }

interface EngineCall { name: string, request: Record<string, unknown> }

/** The engine calls the app makes while `body` runs, in order, with their requests. */
async function engineRequests (app: App, body: () => Promise<void>): Promise<EngineCall[]> {
  const service = app.engine.client.workflowService as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
  const calls: EngineCall[] = []
  const originals = Object.entries(service).filter(([, fn]) => typeof fn === 'function')
  for (const [name, fn] of originals) {
    service[name] = async (...args: unknown[]) => { calls.push({ name, request: args[0] as Record<string, unknown> }); return await fn(...args) }
  }
  try { await body() } finally { for (const [name, fn] of originals) service[name] = fn }
  return calls
}

/** Counts the engine calls the app makes while `body` runs. */
async function engineCalls (app: App, body: () => Promise<void>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const { name } of await engineRequests(app, body)) counts[name] = (counts[name] ?? 0) + 1
  return counts
}

/**
 * Sends an open run signals it does not handle until its history takes more than one first page
 * (the engine pages by the batches events were written in, so the number of signals needed varies).
 */
async function lengthenPastFirstPage (t: Test, app: App, run: { workflowId: string, runId: string }): Promise<void> {
  const handle = app.engine.client.workflow.getHandle(run.workflowId, run.runId)
  const firstPage = () => app.engine.client.workflowService.getWorkflowExecutionHistory({
    namespace: app.config.TEMPORAL_NAMESPACE, execution: run, maximumPageSize: SHORT_HISTORY_EVENTS
  })
  let signals = 0
  while (signals < 500 && !(await firstPage()).nextPageToken?.length) for (let i = 0; i < 10; i++, signals++) await handle.signal('noise')
  t.ok((await firstPage()).nextPageToken?.length, `the history is longer than a page after ${signals} signals`)
}

t.test('a closed run answers the same, from the cache as from the engine', async (t) => {
  const app = await build(t)
  const uncached = await build(t, { SERVICE_CLOSED_RUN_CACHE_ENTRIES: '0' })
  const run = await start(t, app, 'hello', { name: 'Cache' })
  await waitClosed(app, run.workflowId)
  // The trace is written by the worker after the close; until then it is assembled (and not kept).
  await eventually(async () => (await call(t, app, read('trace-log', run.workflowId, run.runId))).body.source, (s) => s !== 'engine')

  for (const what of ['status', 'result', 'input', 'trace-log'] as const) {
    for (const rid of [undefined, run.runId]) {
      const first = await call(t, app, read(what, run.workflowId, rid))
      const again = await call(t, app, read(what, run.workflowId, rid))
      const engine = await call(t, uncached, read(what, run.workflowId, rid))
      t.equal(first.status, 200, `${what} ${rid ? 'pinned' : 'latest'}`)
      t.same(again.body, first.body, `${what} ${rid ? 'pinned' : 'latest'}: a second read answers the same`)
      t.same(engine.body, first.body, `${what} ${rid ? 'pinned' : 'latest'}: the same as without the cache`)
    }
  }
  t.ok(app.runs.closedRuns.get(run.workflowId, run.runId)?.outcome, 'the outcome is kept')
  t.equal(uncached.runs.closedRuns.size, 0, 'a switched-off cache keeps nothing')

  const calls = await engineCalls(app, async () => {
    for (const what of ['status', 'result', 'input', 'trace-log'] as const) await call(t, app, read(what, run.workflowId, run.runId))
  })
  t.same(calls, {}, 'the pinned reads of a kept run make no engine call')
  const latest = await engineCalls(app, async () => { await call(t, app, read('result', run.workflowId)) })
  t.same(latest, { getWorkflowExecutionHistory: 1 }, 'the latest form still asks the engine which run is current (the first page of its history names it), and only that')
})

t.test('a first result read: one history page for a short run, the first and the close event for a long one', async (t) => {
  const app = await build(t)
  // 12 regular steps: each adds several events, far above the one page a short run is read in.
  const inputs = { short: { name: 'Short' }, long: { stages: 12, local: false } }
  const runs = { short: await start(t, app, 'hello', inputs.short), long: await start(t, app, 'pipeline', inputs.long) }
  const outputs = { short: { greeting: 'Hello, Short!' }, long: { value: 12 } }
  for (const run of Object.values(runs)) await waitClosed(app, run.workflowId)
  const expected = {
    // The latest short run: one page names the run and holds both events. A long one: that page
    // (its first event is the input), the describe naming the run, and the close event.
    short: { latest: { getWorkflowExecutionHistory: 1 }, pinned: { getWorkflowExecutionHistory: 1 } },
    // A pinned run is not known to be closed: its close event is the last batch, read backwards.
    long: { latest: { describeWorkflowExecution: 1, getWorkflowExecutionHistory: 2 }, pinned: { getWorkflowExecutionHistory: 1, getWorkflowExecutionHistoryReverse: 1 } }
  }
  for (const [length, run] of Object.entries(runs) as Array<[keyof typeof runs, { workflowId: string, runId: string }]>) {
    for (const rid of [undefined, run.runId]) {
      const form = rid === undefined ? 'latest' : 'pinned'
      app.runs.closedRuns.clear()
      let answer: Awaited<ReturnType<typeof call>> | undefined
      const calls = await engineCalls(app, async () => { answer = await call(t, app, read('result', run.workflowId, rid)) })
      t.same(calls, expected[length][form], `${length} run, ${form}: engine calls of a first read`)
      t.match(answer, { status: 200, body: { runId: run.runId, status: 'completed', input: inputs[length], output: outputs[length] } }, `${length} run, ${form}: its input and output`)
    }
  }
})

t.test('the latest run of an id a reset gave a new run is that run, for a short history and a long one', async (t) => {
  const app = await build(t)
  const runs = { short: await start(t, app, 'hello', { name: 'Reset' }), long: await start(t, app, 'pipeline', { stages: 12, local: false }) }
  for (const run of Object.values(runs)) await waitClosed(app, run.workflowId)
  // The long run is reset at its last workflow task: the marker naming the new run lies far beyond the first page.
  const expected = {
    short: { from: 'start', input: { name: 'Reset' }, calls: { getWorkflowExecutionHistory: 1 } },
    long: { from: 'lastWorkflowTask', input: { stages: 12, local: false }, calls: { describeWorkflowExecution: 1, getWorkflowExecutionHistory: 3 } }
  }
  for (const [length, run] of Object.entries(runs) as Array<[keyof typeof runs, { workflowId: string, runId: string }]>) {
    const reset = await call(t, app, { method: 'POST', url: `/workflow/${run.workflowId}/reset`, route: '/workflow/{id}/reset', payload: { from: expected[length].from } })
    t.equal(reset.status, 200, `${length} run reset`)
    const newRunId = String(reset.body.runId)
    t.not(newRunId, run.runId)
    await waitClosed(app, run.workflowId, newRunId)
    app.runs.closedRuns.clear()
    let answer: Awaited<ReturnType<typeof call>> | undefined
    const calls = await engineCalls(app, async () => { answer = await call(t, app, read('result', run.workflowId)) })
    t.match(answer?.body, { runId: newRunId, status: 'completed', input: expected[length].input }, `${length}: the result of the run the reset made`)
    t.same(calls, expected[length].calls, `${length}: engine calls (the long run's start event names its base run, so its first event is read again)`)
    app.runs.closedRuns.clear()
    t.match((await call(t, app, read('input', run.workflowId))).body, { runId: newRunId, input: expected[length].input }, `${length}: its input`)
  }
})

t.test('a new run behind the same workflow id is seen at once, also one that continues as new', async (t) => {
  const app = await build(t)
  const workflowId = newId('reused')
  const first = await start(t, app, 'hello', { name: 'First' }, workflowId)
  await waitClosed(app, workflowId)
  for (const what of ['status', 'result', 'input'] as const) t.equal((await call(t, app, read(what, workflowId))).body.runId, first.runId)

  const second = await start(t, app, 'hello', { name: 'Second' }, workflowId)
  t.not(second.runId, first.runId)
  await waitClosed(app, workflowId, second.runId)
  t.match((await call(t, app, read('result', workflowId))).body, { runId: second.runId, input: { name: 'Second' }, output: { greeting: 'Hello, Second!' } })
  t.match((await call(t, app, read('input', workflowId))).body, { runId: second.runId, input: { name: 'Second' } })
  t.match((await call(t, app, read('status', workflowId))).body, { runId: second.runId, status: 'completed' })

  const relay = await start(t, app, 'relay', { hops: 1 }, workflowId)
  await waitClosed(app, workflowId)
  const latest = await call(t, app, read('result', workflowId))
  t.not(latest.body.runId, relay.runId, 'the run the relay continued as')
  t.not(latest.body.runId, second.runId)
  t.match(latest.body, { status: 'completed', input: { hops: 0 } })
  t.match((await call(t, app, read('status', workflowId))).body, { runId: latest.body.runId })
  t.match((await call(t, app, read('result', workflowId, relay.runId))).body, { status: 'continued_as_new', input: { hops: 1 } })
  t.match((await call(t, app, read('result', workflowId, first.runId))).body, { runId: first.runId, input: { name: 'First' } }, 'earlier runs keep their answers')
})

t.test('a kept run is only ever answered under its own workflow id', async (t) => {
  const app = await build(t)
  const run = await start(t, app, 'hello', { name: 'Own' })
  await waitClosed(app, run.workflowId)
  t.equal((await call(t, app, read('result', run.workflowId, run.runId))).status, 200)
  for (const what of ['status', 'result', 'input'] as const) {
    const res = await call(t, app, read(what, newId('other'), run.runId))
    t.equal(res.status, 404, what)
    t.equal(res.body.error, 'WorkflowNotFoundError')
  }
})

t.test('open runs are not kept as closed: their result waits for the close', async (t) => {
  const app = await build(t)
  const run = await start(t, app, 'approval', { label: 'open' })
  t.equal((await call(t, app, read('status', run.workflowId, run.runId))).body.status, 'running')
  t.equal((await call(t, app, read('result', run.workflowId, run.runId))).status, 424)
  t.equal(app.runs.closedRuns.get(run.workflowId, run.runId)?.execution, undefined, 'no status kept for an open run')
  await app.engine.client.workflow.getHandle(run.workflowId).terminate('closing it')
  await waitClosed(app, run.workflowId)
  t.match((await call(t, app, read('status', run.workflowId, run.runId))).body, { status: 'terminated' })
  t.match((await call(t, app, read('result', run.workflowId, run.runId))).body, { status: 'terminated', input: { label: 'open' } })
})

t.test('polling the result of an open run costs one engine call, for a short history and, after the first poll, a long one', async (t) => {
  const app = await build(t)
  const run = await start(t, app, 'approval', { label: 'polled' })
  t.teardown(async () => { await app.engine.client.workflow.getHandle(run.workflowId).terminate('test over').catch(() => undefined) })
  t.ok(await firstTaskCompleted(app, run.workflowId, run.runId), 'the run waits for its approval')
  const poll = async () => {
    let answer: Awaited<ReturnType<typeof call>> | undefined
    const calls = await engineCalls(app, async () => { answer = await call(t, app, read('result', run.workflowId)) })
    t.match(answer, { status: 424, body: { error: 'WorkflowNotCompletedError', message: `Workflow ${run.workflowId} run ${run.runId} is not closed yet (status running)` } })
    return calls
  }
  t.same(await poll(), { getWorkflowExecutionHistory: 1 }, 'short: the first page, which is the whole open history')
  await lengthenPastFirstPage(t, app, run)
  t.same(await poll(), { describeWorkflowExecution: 1, getWorkflowExecutionHistory: 1 }, 'long, first poll: the page cannot name the run, the describe does')
  t.same(await poll(), { describeWorkflowExecution: 1 }, 'long, later polls: the describe alone')
  t.same(await poll(), { describeWorkflowExecution: 1 })
})

t.test('the pinned result of an open run is a 424 in every form, without a close-event read (the engine long-polls it while the run is open)', async (t) => {
  const app = await build(t)
  const run = await start(t, app, 'approval', { label: 'open' })
  t.teardown(async () => { await app.engine.client.workflow.getHandle(run.workflowId).terminate('test over').catch(() => undefined) })
  t.ok(await firstTaskCompleted(app, run.workflowId, run.runId), 'the run waits for its approval')
  // The engine holds such a read of an open run until it closes (up to its 20 s long-poll
  // interval, or the call's deadline) and then answers an empty page: the 424 would come, late.
  const closeEventReads = (calls: EngineCall[]) => calls.filter(({ name, request }) => name === 'getWorkflowExecutionHistory' &&
    request.historyEventFilterType === HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
  const pinnedResult = async (form: string) => {
    let answer: Awaited<ReturnType<typeof call>> | undefined
    const calls = await engineRequests(app, async () => { answer = await call(t, app, read('result', run.workflowId, run.runId)) })
    t.match(answer, { status: 424, body: { error: 'WorkflowNotCompletedError', message: `Workflow ${run.workflowId} run ${run.runId} is not closed yet (status running)` } }, `${form}: 424`)
    t.same(closeEventReads(calls), [], `${form}: no close-event read`)
  }
  const readInput = async () => {
    t.match((await call(t, app, read('input', run.workflowId, run.runId))).body, { input: { label: 'open' } })
    t.same(app.runs.closedRuns.get(run.workflowId, run.runId)?.input, { label: 'open' }, 'its input is kept, its outcome not')
  }

  await pinnedResult('short history, nothing kept')
  await readInput()
  await pinnedResult('short history, its input kept')
  await lengthenPastFirstPage(t, app, run)
  app.runs.closedRuns.clear()
  await pinnedResult('long history, nothing kept')
  await readInput()
  await pinnedResult('long history, its input kept')
})

t.test('the bounds are respected: runs and bytes', async (t) => {
  const app = await build(t, { SERVICE_CLOSED_RUN_CACHE_ENTRIES: '2' })
  const runs = []
  for (const name of ['A', 'B', 'C']) runs.push(await start(t, app, 'hello', { name }))
  for (const run of runs) await waitClosed(app, run.workflowId)
  for (const run of runs) t.equal((await call(t, app, read('result', run.workflowId, run.runId))).status, 200)
  t.equal(app.runs.closedRuns.size, 2, 'at most SERVICE_CLOSED_RUN_CACHE_ENTRIES runs')
  t.equal(app.runs.closedRuns.get(runs[0].workflowId, runs[0].runId), undefined, 'the least recently used run left')
  t.match((await call(t, app, read('result', runs[0].workflowId, runs[0].runId))).body, { input: { name: 'A' } }, 'and is read from the engine again')
})

t.test('ClosedRuns keeps at most its byte bound and never one entry above a quarter of it', async (t) => {
  const runs = new ClosedRuns({ maxEntries: 100, maxBytes: 8192, ttlMs: 60_000 })
  const workflowId = 'w'
  for (let i = 0; i < 20; i++) runs.remember(workflowId, randomUUID(), { input: { text: 'x'.repeat(500) } })
  t.ok(runs.bytes <= 8192, `${runs.bytes} bytes kept`)
  t.ok(runs.size < 20, `${runs.size} runs kept`)
  const big = randomUUID()
  runs.remember(workflowId, big, { input: 'y'.repeat(4000) })
  t.equal(runs.get(workflowId, big), undefined, 'an entry above a quarter of the bound is not kept')
  const small = randomUUID()
  runs.remember(workflowId, small, { input: null })
  t.same(runs.get(workflowId, small), { workflowId, input: null }, 'a null input is kept as a fact')
  t.equal(runs.get('another', small), undefined, 'under another workflow id it is not found')
})
