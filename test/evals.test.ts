/**
 * Evals end to end (docs/evals.md): the example `triage` workflow's eval over its
 * three datasets (examples/src/triage/), run by the real worker's eval workflow on the real engine,
 * through the API and the `flowport eval` command. One case (`feature_request`) fails a required
 * evaluator, one (`refund_request`) is partial when run fresh and passes from its cached output.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parse } from 'yaml'
import { caseVerdict, compare, interpret } from '@flowport/core/eval'
import type { EvalRun } from '../schemas/evals.js'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { catalogArgs, flowport, listening } from './helpers/flowport-cli.js'
import { eventually } from './helpers/workflows.js'
import { keysFile } from './helpers/keys.js'
import { testCatalog } from './helpers/env.js'

const DATASETS = resolve('examples/src/triage/datasets')

async function startEval (app: App, body: Record<string, unknown>): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/evals', payload: body })
  if (res.statusCode !== 202) throw new Error(`start: ${res.statusCode} ${res.body}`)
  const { evalId } = res.json() as { evalId: string }
  if (res.headers.location !== `/evals/${encodeURIComponent(evalId)}`) throw new Error(`start: Location ${String(res.headers.location)}`)
  return evalId
}

async function finished (app: App, evalId: string): Promise<EvalRun> {
  return await eventually(
    async () => (await app.inject({ method: 'GET', url: `/evals/${encodeURIComponent(evalId)}` })).json() as EvalRun,
    (run) => run.status !== 'running', 240)
}

async function evalIds (app: App, workflowName: string): Promise<string[]> {
  const res = await app.inject({ method: 'GET', url: `/evals?workflowName=${workflowName}&pageSize=100` })
  return (res.json() as { evals: Array<{ evalId: string }> }).evals.map((e) => e.evalId)
}

const verdicts = (run: EvalRun) => Object.fromEntries((run.report?.cases ?? []).map((c) => [c.name, c.verdict]))

t.test('interpretations and the case verdict (required fail → fail; required partial → partial; informational never counts)', async (t) => {
  t.same(interpret({ type: 'boolean' }, true), { verdict: 'pass' })
  t.same(interpret({ type: 'boolean' }, false), { verdict: 'fail' })
  t.same(interpret({ type: 'verdict' }, 'partial'), { verdict: 'partial' })
  t.same(interpret({ type: 'number', pass: 0.8, partial: 0.3 }, 0.5), { verdict: 'partial' })
  t.same(interpret({ type: 'number', pass: 0.8 }, 0.5), { verdict: 'fail' })
  t.same(interpret({ type: 'string', pass: ['a'], partial: ['b'] }, 'b'), { verdict: 'partial' })
  t.match(interpret({ type: 'boolean' }, 0.3), { verdict: 'fail', problem: /expected a boolean/ }, 'a value of the wrong type fails, saying why')
  const r = (criticality: 'required' | 'informational', verdict: 'pass' | 'partial' | 'fail') => ({ criticality, verdict })
  t.equal(caseVerdict([r('required', 'pass'), r('required', 'partial'), r('required', 'fail')]), 'fail')
  t.equal(caseVerdict([r('required', 'pass'), r('required', 'partial'), r('informational', 'fail')]), 'partial')
  t.equal(caseVerdict([r('required', 'pass'), r('informational', 'fail')]), 'pass')
  t.match(compare([{ name: 'a', verdict: 'pass' }, { name: 'b', verdict: 'fail' }, { name: 'c', verdict: 'partial' }, { name: 'd', verdict: 'pass' }],
    { workflowId: 'w', runId: 'r', cases: [{ name: 'a', verdict: 'partial' }, { name: 'b', verdict: 'pass' }, { name: 'c', verdict: 'partial' }] }),
  { workflowId: 'w', runId: 'r', better: ['a'], worse: ['b'], unchanged: ['c'], new: ['d'] })
})

t.test('the catalog publishes the eval; a workflow without one, or a bad body, is refused before anything starts', async (t) => {
  const app = await build(t)
  const catalog = (await app.inject({ method: 'GET', url: '/workflow/catalog' })).json() as { workflows: Array<{ name: string, eval?: unknown }> }
  t.same(catalog.workflows.find((w) => w.name === 'triage')?.eval, {
    evaluators: [
      { name: 'categoryMatches', criticality: 'required', interpret: { type: 'boolean' } },
      { name: 'replyBrevity', criticality: 'required', interpret: { type: 'number', pass: 0.8, partial: 0.3 } },
      { name: 'urgencyLevel', criticality: 'informational', interpret: { type: 'string', pass: ['normal'], partial: ['high'] } }
    ]
  })
  t.notOk('eval' in (catalog.workflows.find((w) => w.name === 'hello') ?? {}), 'no eval, no field')
  const none = await app.inject({ method: 'POST', url: '/evals', payload: { workflowName: 'hello' } })
  t.equal(none.statusCode, 404)
  t.match(none.json(), { error: 'WorkflowNotFoundError', message: /hello has no eval/ })
  const bad = await app.inject({ method: 'POST', url: '/evals', payload: { workflowName: 'triage', cached: 'yes' } })
  t.equal(bad.statusCode, 400)
  t.match(bad.json(), { error: 'ValidationError', issues: [{ path: '/cached', in: 'body' }] })
  const unknown = await app.inject({ method: 'GET', url: `/evals/eval:triage:${randomUUID()}` })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error, 'WorkflowNotFoundError')
})

t.test('a case whose run fails, and an evaluator that breaks, fail their cases; a mistyped informational value never decides', async (t) => {
  const app = await build(t)
  const run = await finished(app, await startEval(app, { workflowName: 'judged' }))
  t.equal(run.status, 'completed')
  t.same(verdicts(run), { evaluator_breaks: 'fail', ok: 'pass', run_fails: 'fail' }, 'JSON and YAML datasets; a file without a name is named after the file')
  const failedRun = run.report!.cases.find((c) => c.name === 'run_fails')!
  t.match(failedRun, { error: /the case run failed on purpose/, output: null, results: [], run: { workflowId: /:run_fails$/ } })
  const broken = run.report!.cases.find((c) => c.name === 'evaluator_breaks')!
  t.match(broken.results.find((r) => r.evaluator === 'fragile'), { verdict: 'fail', value: null, score: null, reasoning: /evaluator failed: .*the evaluator broke on purpose/ })
  const ok = run.report!.cases.find((c) => c.name === 'ok')!
  t.match(ok.results.find((r) => r.evaluator === 'mistyped'), { verdict: 'fail', value: 'yes', reasoning: /expected a boolean value to interpret, got "yes"/ })
})

t.test('an unknown dataset, or cached outputs a case lacks, is refused with a 400 before any eval run starts', async (t) => {
  const app = await build(t)
  const before = await evalIds(app, 'judged')
  const unknown = await app.inject({ method: 'POST', url: '/evals', payload: { workflowName: 'triage', datasets: ['no_such_case', 'crash_report'] } })
  t.equal(unknown.statusCode, 400)
  t.match(unknown.json(), {
    error: 'ValidationError',
    issues: [{ path: '/datasets', in: 'body', message: /no dataset no_such_case \(it has: crash_report, feature_request, refund_request\)/ }]
  })
  // The `judged` fixture's datasets have no cached outputs.
  const uncached = await app.inject({ method: 'POST', url: '/evals', payload: { workflowName: 'judged', cached: true } })
  t.equal(uncached.statusCode, 400)
  t.match(uncached.json(), { error: 'ValidationError', issues: [{ path: '/cached', in: 'body', message: /No cached output in dataset evaluator_breaks, ok, run_fails/ }] })
  // A started eval run shows in the listing within a moment; wait for one that was started after the refusals.
  const marker = await startEval(app, { workflowName: 'judged', datasets: ['ok'] })
  const after = await eventually(async () => await evalIds(app, 'judged'), (ids) => ids.includes(marker), 60)
  t.same(after.filter((id) => !before.includes(id)), [marker], 'the refused requests started no eval run')
})

t.test('flowport eval exits 2 on an unknown dataset or --cached without cached outputs, and starts nothing', async (t) => {
  const { url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const unknown = await flowport(['eval', 'triage', '--dataset', 'no_such_case', ...catalogArgs()], { env })
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /ValidationError: .*no dataset no_such_case/)
  t.notMatch(unknown.stderr, /eval run eval:/, 'no eval run started')
  const uncached = await flowport(['eval', 'judged', '--cached', ...catalogArgs()], { env })
  t.equal(uncached.code, 2)
  t.match(uncached.stderr, /No cached output in dataset/)
})

t.test('each case is compared with its own latest earlier result, whatever cases or mode the eval run before had', async (t) => {
  const app = await build(t)
  const full = await finished(app, await startEval(app, { workflowName: 'triage' }))
  const one = await finished(app, await startEval(app, { workflowName: 'triage', datasets: ['refund_request'], cached: true }))
  t.same(verdicts(one), { refund_request: 'pass' })
  const again = await finished(app, await startEval(app, { workflowName: 'triage' }))
  const previous = again.report!.previous!
  t.match(previous, { workflowId: one.evalId, worse: ['refund_request'], unchanged: ['crash_report', 'feature_request'], better: [], new: [] },
    'crash_report and feature_request are not "new": the cached run of one case came in between')
  const from = Object.fromEntries(previous.earlier.map((e) => [e.name, [e.workflowId, e.runId, e.verdict]]))
  t.same(from, {
    crash_report: [full.evalId, full.runId, 'pass'],
    feature_request: [full.evalId, full.runId, 'fail'],
    refund_request: [one.evalId, one.runId, 'pass']
  })
})

t.test('API: a fresh eval run; each case is a linked run; verdicts, totals, and the comparison with the previous eval run', async (t) => {
  const app = await build(t)
  const first = await finished(app, await startEval(app, { workflowName: 'triage' }))
  t.equal(first.status, 'completed')
  const report = first.report!
  t.same(verdicts(first), { crash_report: 'pass', feature_request: 'fail', refund_request: 'partial' })
  t.same(report.totals, { cases: 3, pass: 1, partial: 1, fail: 1 })
  t.equal(report.verdict, 'fail')
  t.same(first.totals, report.totals, 'the summary (memo) agrees with the report')
  const feature = report.cases.find((c) => c.name === 'feature_request')!
  t.match(feature.results.find((r) => r.evaluator === 'categoryMatches'), { value: false, verdict: 'fail', reasoning: 'expected feature, got bug', criticality: 'required' })
  const refund = report.cases.find((c) => c.name === 'refund_request')!
  t.match(refund.results.find((r) => r.evaluator === 'replyBrevity'), { verdict: 'partial', reasoning: '98 characters' })
  const crash = report.cases.find((c) => c.name === 'crash_report')!
  t.match(crash.results.find((r) => r.evaluator === 'urgencyLevel'), { value: 'high', verdict: 'partial', criticality: 'informational' }, 'an informational partial leaves the case passing')
  t.equal(crash.file, 'src/triage/datasets/crash_report.yml', 'relative to its package, not a path of the worker\'s machine')

  // The case's run is a real run of the workflow, a child of the eval run.
  const status = (await app.inject({ method: 'GET', url: `/workflow/${encodeURIComponent(crash.run!.workflowId)}/runs/${crash.run!.runId}/status` })).json()
  t.match(status, { workflowName: 'triage', status: 'completed' })
  t.same(crash.output, { category: 'bug', urgency: 'high', reply: 'Sorry about that! Engineering has the report.' })

  // The evaluators ran as steps of the eval run: they are in its trace.
  const trace = await eventually(async () => await app.inject({ method: 'GET', url: `/workflow/${encodeURIComponent(first.evalId)}/trace-log` }), (res) => res.statusCode === 200, 60)
  const nodes = trace.json().trace.nodes as Array<{ kind: string }>
  t.equal(nodes.filter((n) => n.kind === 'evaluator').length, 9, 'three evaluators for each of three cases')
  t.equal(nodes.filter((n) => n.kind === 'child').length, 3, 'one child run per case')

  // Cached outputs: refund_request's cached reply is short, so it passes; compared with the fresh run above, it got better.
  const second = await finished(app, await startEval(app, { workflowName: 'triage', cached: true }))
  t.same(verdicts(second), { crash_report: 'pass', feature_request: 'fail', refund_request: 'pass' })
  t.same(second.report!.cases.map((c) => c.run), [null, null, null], 'no runs with cached outputs')
  t.equal(second.report!.cases.find((c) => c.name === 'refund_request')!.outputDate, '2026-11-27T12:00:00.000Z')
  t.match(second.report!.previous, { workflowId: first.evalId, runId: first.runId, better: ['refund_request'], worse: [], unchanged: ['crash_report', 'feature_request'], new: [] })

  const list = (await app.inject({ method: 'GET', url: '/evals?workflowName=triage&pageSize=2' })).json() as { evals: Array<{ evalId: string, verdict: string }> }
  t.same(list.evals.map((e) => e.evalId), [second.evalId, first.evalId], 'most recent first')
  t.match(list.evals[0], { verdict: 'fail', totals: { cases: 3, pass: 2, partial: 0, fail: 1 }, cached: true, status: 'completed', workflowName: 'triage' })
})

t.test('flowport eval: the verdict table, exit 1 when a required evaluator failed, --dataset, --cached, --json', async (t) => {
  const { url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const all = await flowport(['eval', 'triage', ...catalogArgs()], { env })
  t.equal(all.code, 1, 'exit 1: feature_request failed categoryMatches')
  t.match(all.stdout, /feature_request\s+fail\s+categoryMatches\s+required\s+false\s+fail\s+expected feature, got bug/)
  t.match(all.stdout, /3 cases: 1 pass, 1 partial, 1 fail; verdict fail/)
  t.match(all.stdout, /compared with eval:triage:/)
  t.match(all.stderr, /^eval run eval:triage:/)

  const passing = await flowport(['eval', 'triage', '--dataset', 'crash_report,refund_request', '--cached', ...catalogArgs()], { env })
  t.equal(passing.code, 0, 'exit 0: no case failed')
  t.match(passing.stdout, /2 cases: 2 pass, 0 partial, 0 fail; verdict pass/)

  const json = await flowport(['eval', 'triage', '--dataset', 'refund_request', '--json', ...catalogArgs()], { env })
  t.equal(json.code, 0, 'partial is not a failure')
  t.match(JSON.parse(json.stdout), { status: 'completed', report: { totals: { cases: 1, partial: 1 }, cases: [{ name: 'refund_request', verdict: 'partial' }] } })

  const usage = await flowport(['eval', 'triage', '--cached', '--save', ...catalogArgs()], { env })
  t.equal(usage.code, 2)
  t.match(usage.stderr, /--save writes fresh outputs/)
})

t.test('flowport eval --save writes the fresh outputs into the dataset files, keeping the rest', async (t) => {
  const { url } = await listening(t)
  const file = resolve(DATASETS, 'refund_request.yml')
  const original = readFileSync(file, 'utf8')
  t.teardown(() => { writeFileSync(file, original) })
  const saved = await flowport(['eval', 'triage', '--dataset', 'refund_request', '--save', ...catalogArgs()], { env: { FLOWPORT_URL: url } })
  t.equal(saved.code, 0)
  t.match(saved.stderr, /saved 1 output/)
  const text = readFileSync(file, 'utf8')
  t.match(text, /^# A billing question/, 'comments kept')
  const data = parse(text) as { lastOutput: { output: { reply: string }, date: string }, groundTruth: unknown }
  t.equal(data.lastOutput.output.reply, 'Thanks for writing. Our billing team will look at your account and answer within one business day.')
  t.not(data.lastOutput.date, '2026-11-27T12:00:00.000Z', 'the date of the fresh output')
  t.same(data.groundTruth, { category: 'billing' })
})

t.test('scoped like runs: a key limited to other workflows or catalogs can neither start, list nor read triage\'s eval runs', async (t) => {
  const { keys, file } = keysFile(t, [
    { id: 'triage', scopes: ['run', 'read'], workflows: ['tri*'] },
    { id: 'hello', scopes: ['run', 'read'], workflows: ['hel*'] },
    { id: 'elsewhere', scopes: ['run', 'read'], catalogs: ['another-catalog'] },
    { id: 'reader', scopes: ['read'] }
  ])
  const app = await build(t, { SERVICE_API_KEYS_FILE: file })
  const as = async (id: string, method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
    await app.inject({ method, url, headers: { authorization: `Bearer ${keys[id]!}` }, payload })
  const started = await as('triage', 'POST', '/evals', { workflowName: 'triage', cached: true })
  t.equal(started.statusCode, 202, started.body)
  const { evalId } = started.json() as { evalId: string }
  const url = `/evals/${encodeURIComponent(evalId)}`
  t.equal((await as('triage', 'GET', url)).statusCode, 200, 'its workflows\' eval runs: readable')
  t.equal((await as('triage', 'GET', '/evals?workflowName=triage')).statusCode, 200, 'and listable')

  const refusals = [
    [await as('hello', 'POST', '/evals', { workflowName: 'triage' }), /may not use workflow triage/],
    [await as('hello', 'GET', url), /may not use workflow triage/],
    [await as('hello', 'GET', '/evals?workflowName=triage'), /may not use workflow triage/],
    [await as('elsewhere', 'GET', url), new RegExp(`may not use catalog ${testCatalog()}`)],
    [await as('reader', 'POST', '/evals', { workflowName: 'triage' }), /lacks scope run/]
  ] as const
  for (const [res, message] of refusals) {
    t.equal(res.statusCode, 403)
    t.match(res.json(), { error: 'ForbiddenError', message })
  }
  const done = await eventually(async () => (await as('triage', 'GET', url)).json() as EvalRun, (run) => run.status !== 'running', 240)
  t.equal(done.status, 'completed', 'the eval run started by the limited key completes')
})
