/**
 * The eval workflow: one run per eval run, id `eval:<workflow>:<uuid>`, started by the API on the
 * workflow's catalog, so that everything an eval does (read the cases, run each case as a child
 * run or take its cached output, run the evaluators as the judged workflow's steps, compare with
 * the previous eval run) is a durable, retried and traced piece of this run's history
 * (docs/evals.md). The report is the run's result; a summary (verdict, totals) goes to the memo
 * for listings.
 */
import { TimeoutFailure, patched, proxyActivities, startChild, upsertMemo, workflowInfo } from '@temporalio/workflow'
import { mapBounded } from '@flowport/core/bounded'
import {
  EVAL_CASES_ACTIVITY, EVAL_DEFAULT_CASE_TIMEOUT_MS, EVAL_DEFAULT_CONCURRENCY, EVAL_PREVIOUS_ACTIVITY, EVAL_SUMMARY_MEMO_KEY, caseVerdict, compare, interpret, totalsOf,
  type EvalCase, type EvalCaseReport, type EvalCases, type EvalEvaluator, type EvalReport, type EvalResult, type EvalRunInput, type EvalSummary,
  type PreviousEval
} from '@flowport/core/eval'
import { installManifest, type Manifest } from './manifest.js'
import { callComponent } from './steps.js'

const activities = proxyActivities<{
  [EVAL_CASES_ACTIVITY]: (input: EvalRunInput) => Promise<EvalCases>
  [EVAL_PREVIOUS_ACTIVITY]: (input: { workflow: string, workflowId: string }) => Promise<PreviousEval>
}>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 5 } })

/**
 * Eval runs started before the bounds existed started every case at once without a timeout: their
 * histories replay that way (patched() is false on replay of a history without this marker).
 */
const BOUNDED_CASES_PATCH = 'flowport-eval-bounded-cases'

/** How the cases run: `undefined` bounds = the old way (every case at once, no timeout). */
interface CaseBounds { concurrency: number, caseTimeoutMs: number }

/** The deepest message of a failure chain: what actually went wrong, not "Activity task failed". */
function messageOf (err: unknown): string {
  let e = err as { message?: unknown, cause?: unknown } | undefined
  while (e?.cause !== undefined && e.cause !== null) e = e.cause as typeof e
  return typeof e?.message === 'string' ? e.message : String(err)
}

async function evaluate (workflow: string, entry: EvalEvaluator, c: EvalCase, output: unknown): Promise<EvalResult> {
  const base = { evaluator: entry.name, criticality: entry.criticality }
  let evaluation: { score: number, reasoning?: string, value?: boolean | number | string }
  try {
    evaluation = await callComponent(workflow, entry.name, { input: c.input, output, groundTruth: c.groundTruth ?? null }) as typeof evaluation
  } catch (err) {
    // An evaluator that failed for good (after its retries) cannot vouch for the case.
    return { ...base, value: null, score: null, verdict: 'fail', reasoning: `evaluator failed: ${messageOf(err)}` }
  }
  const value = evaluation.value ?? evaluation.score
  const { verdict, problem } = interpret(entry.interpret, value)
  const reasoning = [evaluation.reasoning, problem].filter((r) => r !== undefined).join('; ')
  return { ...base, value, score: evaluation.score, verdict, reasoning: reasoning === '' ? null : reasoning }
}

/** Why a case's run failed; a run the engine ended at its timeout says so and names the bound. */
function caseError (err: unknown, bounds: CaseBounds | undefined): string {
  const cause = (err as { cause?: unknown }).cause
  if (bounds !== undefined && cause instanceof TimeoutFailure) {
    return `timed out: the case's run did not finish within ${bounds.caseTimeoutMs} ms (caseTimeoutMs), so the engine ended it`
  }
  return messageOf(err)
}

async function runCase (input: EvalRunInput, evaluators: EvalEvaluator[], c: EvalCase, bounds: CaseBounds | undefined): Promise<EvalCaseReport> {
  const head = { name: c.name, file: c.file }
  let output: unknown
  let outputDate: string
  let run: EvalCaseReport['run'] = null
  if (input.cached && c.lastOutput !== undefined) {
    output = c.lastOutput.output
    outputDate = c.lastOutput.date
  } else {
    const workflowId = `${workflowInfo().workflowId}:${c.name}`
    try {
      // Started, then awaited: the report links the case's run, whose id only the handle knows.
      const child = await startChild(input.workflow, {
        args: [c.input],
        workflowId,
        ...(bounds === undefined ? {} : { workflowExecutionTimeout: bounds.caseTimeoutMs })
      })
      run = { workflowId, runId: child.firstExecutionRunId }
      output = await child.result()
    } catch (err) {
      return { ...head, verdict: 'fail', run, output: null, error: caseError(err, bounds), outputDate: new Date().toISOString(), results: [] }
    }
    outputDate = new Date().toISOString()
  }
  const results = await Promise.all(evaluators.map((e) => evaluate(input.workflow, e, c, output)))
  return { ...head, verdict: caseVerdict(results), run, output, error: null, outputDate, results }
}

export async function evalWorkflow (input: EvalRunInput, manifest: Manifest): Promise<EvalReport> {
  installManifest(manifest)
  const { evaluators, cases } = await activities[EVAL_CASES_ACTIVITY](input)
  let reports: EvalCaseReport[]
  if (patched(BOUNDED_CASES_PATCH)) {
    const bounds = { concurrency: input.concurrency ?? EVAL_DEFAULT_CONCURRENCY, caseTimeoutMs: input.caseTimeoutMs ?? EVAL_DEFAULT_CASE_TIMEOUT_MS }
    reports = await mapBounded(cases, bounds.concurrency, async (c) => await runCase(input, evaluators, c, bounds))
  } else {
    reports = await Promise.all(cases.map((c) => runCase(input, evaluators, c, undefined)))
  }
  const { verdict, totals } = totalsOf(reports.map((r) => r.verdict))
  const previous = await activities[EVAL_PREVIOUS_ACTIVITY]({ workflow: input.workflow, workflowId: workflowInfo().workflowId })
  const summary: EvalSummary = { workflow: input.workflow, verdict, totals, cached: input.cached }
  upsertMemo({ [EVAL_SUMMARY_MEMO_KEY]: summary })
  return { workflow: input.workflow, cached: input.cached, verdict, totals, cases: reports, previous: previous === null ? null : compare(reports, previous) }
}
