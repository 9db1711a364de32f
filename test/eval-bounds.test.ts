/**
 * An eval run's bounds (docs/evals.md, "Bounds"): at most `concurrency` case runs open at once,
 * and a case's run ended by the engine after `caseTimeoutMs`, the case failing with the reason and
 * the eval run completing. The fixture `patient` (test/fixtures/workflows/patient/) has four quick
 * cases and one that waits for a signal nobody sends. Open case runs are counted from the eval
 * run's own history, not from timing.
 */
import t, { type Test } from 'tap'
import { EVAL_DEFAULT_CASE_TIMEOUT_MS, EVAL_DEFAULT_CONCURRENCY, type EvalRunInput } from '@flowport/core/eval'
import type { temporal } from '@temporalio/proto'
import type { EvalRun } from '../schemas/evals.js'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { eventually } from './helpers/workflows.js'
import { catalogArgs, flowport, listening } from './helpers/flowport-cli.js'

type Event = temporal.api.history.v1.IHistoryEvent

async function startEval (t: Test, app: App, body: Record<string, unknown>): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/evals', payload: body })
  t.equal(res.statusCode, 202, `started: ${res.body}`)
  const { evalId } = res.json() as { evalId: string }
  t.teardown(async () => { await app.engine.client.workflow.getHandle(evalId).terminate('test over').catch(() => undefined) })
  return evalId
}

/** The most case runs open at once in an eval run's history: from the start command until its close. */
function mostOpen (events: Event[]): number {
  let open = 0
  let most = 0
  for (const e of events) {
    if (e.startChildWorkflowExecutionInitiatedEventAttributes) most = Math.max(most, ++open)
    if (e.startChildWorkflowExecutionFailedEventAttributes ?? e.childWorkflowExecutionCompletedEventAttributes ??
      e.childWorkflowExecutionFailedEventAttributes ?? e.childWorkflowExecutionTimedOutEventAttributes ??
      e.childWorkflowExecutionCanceledEventAttributes ?? e.childWorkflowExecutionTerminatedEventAttributes) open--
  }
  return most
}

t.test('a case that waits forever times out and fails, saying why; the eval run completes; never more than `concurrency` case runs open', async (t) => {
  const app = await build(t)
  const evalId = await startEval(t, app, { workflowName: 'patient', concurrency: 2, caseTimeoutMs: 3000 })
  const handle = app.engine.client.workflow.getHandle(evalId)
  await handle.result()
  const run = (await app.inject({ method: 'GET', url: `/evals/${encodeURIComponent(evalId)}` })).json() as EvalRun
  t.equal(run.status, 'completed')
  const verdicts = Object.fromEntries(run.report!.cases.map((c) => [c.name, c.verdict]))
  t.same(verdicts, { quick_1: 'pass', quick_2: 'pass', quick_3: 'pass', quick_4: 'pass', waits_forever: 'fail' })
  const waited = run.report!.cases.find((c) => c.name === 'waits_forever')!
  t.match(waited, { error: /^timed out: the case's run did not finish within 3000 ms \(caseTimeoutMs\)/, output: null, results: [] })
  const caseRun = await app.engine.client.workflow.getHandle(waited.run!.workflowId, waited.run!.runId).describe()
  t.equal(caseRun.status.name, 'TIMED_OUT', 'the engine ended the case run: it holds no worker slot and waits for nothing')
  t.same(run.totals, { cases: 5, pass: 4, partial: 0, fail: 1 })

  const events = (await handle.fetchHistory()).events ?? []
  t.equal(events.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length, 5, 'every case ran')
  t.equal(mostOpen(events), 2, 'two case runs open at once, never more')
  t.ok(events.some((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch'), 'the new command sequence is behind a patch marker (old eval runs replay the old way)')
})

t.test('a cap of 1 runs the cases one after another', async (t) => {
  const app = await build(t)
  const evalId = await startEval(t, app, { workflowName: 'patient', datasets: ['quick_1', 'quick_2', 'quick_3'], concurrency: 1 })
  const handle = app.engine.client.workflow.getHandle(evalId)
  await handle.result()
  t.equal(mostOpen((await handle.fetchHistory()).events ?? []), 1)
})

t.test('the defaults are written into the eval run\'s input (a later change of them never changes how it replays); bad bounds are a 400', async (t) => {
  const app = await build(t)
  const evalId = await startEval(t, app, { workflowName: 'patient', datasets: ['quick_1'] })
  const started = await eventually(async () => (await app.engine.client.workflow.getHandle(evalId).fetchHistory()).events ?? [], (e) => e.length > 0)
  const payload = started[0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!
  const input = JSON.parse(Buffer.from(payload.data!).toString()) as EvalRunInput
  t.match(input, { workflow: 'patient', concurrency: EVAL_DEFAULT_CONCURRENCY, caseTimeoutMs: EVAL_DEFAULT_CASE_TIMEOUT_MS })
  for (const [field, value] of [['concurrency', 0], ['concurrency', 101], ['caseTimeoutMs', 10], ['concurrency', 1.5]] as const) {
    const res = await app.inject({ method: 'POST', url: '/evals', payload: { workflowName: 'patient', [field]: value } })
    t.equal(res.statusCode, 400, `${field} ${value}`)
    t.match(res.json(), { error: 'ValidationError', issues: [{ path: `/${field}`, in: 'body' }] })
  }
})

t.test('flowport eval --concurrency --case-timeout: the bounds from the command line', async (t) => {
  const { url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const run = await flowport(['eval', 'patient', '--dataset', 'waits_forever,quick_1', '--concurrency', '1', '--case-timeout', '2000', '--json', ...catalogArgs()], { env })
  t.equal(run.code, 1, 'exit 1: the waiting case failed')
  const report = (JSON.parse(run.stdout) as EvalRun).report!
  t.match(report.cases.find((c) => c.name === 'waits_forever'), { verdict: 'fail', error: /^timed out: the case's run did not finish within 2000 ms/ })
  t.match(report.cases.find((c) => c.name === 'quick_1'), { verdict: 'pass' }, 'the next case ran once the first had timed out')
  const usage = await flowport(['eval', 'patient', '--concurrency', 'many', ...catalogArgs()], { env })
  t.equal(usage.code, 2)
  t.match(usage.stderr, /--concurrency takes a whole number, got many/)
})
