/**
 * Evals (docs/evals.md): the eval workflow's contract and the pure rules every reader
 * shares. How an evaluator's value is read as a verdict, how a case's verdicts add up, and how a
 * report compares with the previous one live here once: the worker's eval workflow applies them,
 * the API, the CLI and the inspector only show their results. TypeBox only (the workflow sandbox
 * and the browser import it).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'

/** A `$ref` to a named schema that keeps its static type (the API registers every schema with an `$id`). */
const refTo = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T>>(Type.Ref(String(schema.$id)))
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/** Workflow type of the eval workflow (worker/src/workflow/eval.ts); one run per eval run. */
export const EVAL_WORKFLOW_TYPE = '__flowport_eval'
/** Its activities: read the eval's cases from the dataset files, and find the previous eval run. */
export const EVAL_CASES_ACTIVITY = `${EVAL_WORKFLOW_TYPE}#cases`
export const EVAL_PREVIOUS_ACTIVITY = `${EVAL_WORKFLOW_TYPE}#previous`
/**
 * A short run of Flowport's own (id `__flowport_eval_check:<uuid>`) that the API waits for before
 * it starts an eval run: its one activity checks the request against the dataset files of the
 * worker (the only place they are), so that an unknown dataset or `cached` without a cached output
 * is refused with a 400 instead of recording a failed eval run.
 */
export const EVAL_CHECK_WORKFLOW_TYPE = '__flowport_eval_check'
export const EVAL_CHECK_ACTIVITY = `${EVAL_WORKFLOW_TYPE}#check`
export const evalCheckWorkflowId = (uuid: string) => `${EVAL_CHECK_WORKFLOW_TYPE}:${uuid}`
/** What the check answers: null when the eval run may start, else what is wrong with which field of the request. */
export type EvalCheck = { error: 'DatasetNotFoundError' | 'DatasetError', field: 'datasets' | 'cached', message: string } | null
/** Memo field of an eval run: `{workflow, verdict, totals}` once it has finished, for listings. */
export const EVAL_SUMMARY_MEMO_KEY = 'flowportEval'

/**
 * An eval run's workflow id, `eval:<workflow>:<uuid>`, names the evaluated workflow, so the eval
 * runs of a workflow are one visibility query (`WorkflowId STARTS_WITH`, with the eval workflow
 * type), and access limits apply to it without a lookup. Not a reserved `__flowport` id: an eval
 * run and its cases' runs are runs like any other (status, history, trace, the inspector).
 */
export const evalWorkflowIdPrefix = (workflow: string) => `eval:${workflow}:`

export const EVAL_ID_PATTERN = '^eval:[A-Za-z_][A-Za-z0-9_]{0,99}:[0-9a-fA-F-]{36}$'

/** The evaluated workflow named by an eval run's id, or undefined when the id is not one. */
export function workflowOfEvalId (id: string): string | undefined {
  return new RegExp(EVAL_ID_PATTERN).test(id) ? id.slice('eval:'.length, id.lastIndexOf(':')) : undefined
}

export const VerdictSchema = Type.Union([Type.Literal('pass'), Type.Literal('partial'), Type.Literal('fail')], {
  $id: 'EvalVerdict', description: 'pass, partial or fail'
})
export type Verdict = Static<typeof VerdictSchema>

/**
 * How an evaluator's value is read (its `value`, or its `score` when it returns none):
 * `boolean`: true passes; `verdict`: the value is the verdict; `number`: ≥ pass passes, ≥ partial
 * is partial, else fail; `string`: in `pass` passes, in `partial` is partial, else fail.
 */
export const InterpretationMembers = [
  Type.Object({ type: Type.Literal('boolean') }, { $id: 'EvalInterpretationBoolean', additionalProperties: false }),
  Type.Object({ type: Type.Literal('verdict') }, { $id: 'EvalInterpretationVerdict', additionalProperties: false }),
  Type.Object({ type: Type.Literal('number'), pass: Type.Number(), partial: Type.Optional(Type.Number()) }, { $id: 'EvalInterpretationNumber', additionalProperties: false }),
  Type.Object({ type: Type.Literal('string'), pass: Type.Array(Type.String()), partial: Type.Optional(Type.Array(Type.String())) }, { $id: 'EvalInterpretationString', additionalProperties: false })
] as const
/** What a definition's `interpret` is checked against (Value.Check reads no `$ref`). */
export const InterpretationUnion = Type.Union([...InterpretationMembers])
export type Interpretation = Static<typeof InterpretationUnion>
/**
 * The API's schema of it: a `oneOf` of the members, each a component, discriminated by `type`, so
 * that a generated client builds the member `type` names.
 */
export const InterpretationSchema = Type.Unsafe<Interpretation>({
  $id: 'EvalInterpretation',
  oneOf: InterpretationMembers.map((m) => Type.Ref(String(m.$id))),
  discriminator: { propertyName: 'type', mapping: Object.fromEntries(InterpretationMembers.map((m) => [m.properties.type.const, `#/components/schemas/${m.$id}`])) }
})

export const CriticalitySchema = Type.Union([Type.Literal('required'), Type.Literal('informational')], {
  $id: 'EvalCriticality', description: 'A required evaluator decides the case\'s verdict; an informational one is only shown'
})
export type Criticality = Static<typeof CriticalitySchema>

export const EvalEvaluatorSchema = Type.Object({
  name: Type.String({ description: 'The evaluator, run as the step `<workflow>#<name>` with `{input, output, groundTruth}`' }),
  criticality: refTo(CriticalitySchema),
  interpret: refTo(InterpretationSchema)
}, { $id: 'EvalEvaluator', additionalProperties: false })
export type EvalEvaluator = Static<typeof EvalEvaluatorSchema>

/** A workflow's eval as its catalog entry publishes it. */
export const CatalogEvalSchema = Type.Object({
  evaluators: Type.Array(refTo(EvalEvaluatorSchema))
}, { $id: 'CatalogEval', additionalProperties: false, description: 'The workflow\'s eval: its evaluators, how each is read and whether it decides' })
export type CatalogEval = Static<typeof CatalogEvalSchema>

/** What an eval run is started with. */
export interface EvalRunInput {
  workflow: string
  /** Case (dataset) names to run; absent: all of the workflow's datasets. */
  datasets?: string[]
  /** Evaluate each case's cached output instead of running the workflow. */
  cached: boolean
  /** Case runs open at once; absent (an eval run started before this option): EVAL_DEFAULT_CONCURRENCY. */
  concurrency?: number
  /** How long a case's run may take before the engine ends it and the case fails; absent: EVAL_DEFAULT_CASE_TIMEOUT_MS. */
  caseTimeoutMs?: number
}

/**
 * An eval run's bounds (docs/evals.md, "Bounds"): at most this many case runs open at once, so a
 * large dataset does not take every worker slot, and each case run ended by the engine after this
 * long, so a case that waits for a signal fails instead of holding the eval run open for good.
 */
export const EVAL_DEFAULT_CONCURRENCY = 4
export const EVAL_MAX_CONCURRENCY = 100
export const EVAL_DEFAULT_CASE_TIMEOUT_MS = 10 * 60_000
export const EVAL_MIN_CASE_TIMEOUT_MS = 1000
export const EVAL_MAX_CASE_TIMEOUT_MS = 7 * 24 * 3600_000

/** One dataset file: a case. */
export interface EvalCase {
  name: string
  /** The dataset file relative to its package's root (never a path of the worker's machine); `flowport eval --save` finds the package. */
  file: string
  input: unknown
  groundTruth?: unknown
  lastOutput?: { output: unknown, date: string }
}

/** What the cases activity answers. */
export interface EvalCases {
  evaluators: EvalEvaluator[]
  cases: EvalCase[]
}

export const EvalResultSchema = Type.Object({
  evaluator: Type.String(),
  criticality: refTo(CriticalitySchema),
  value: Nullable(Type.Union([Type.Boolean(), Type.Number(), Type.String()], { description: 'What the evaluator returned (its `value`, else its `score`); null when it failed' })),
  score: Nullable(Type.Number({ description: 'Its score (0..1); null when it failed' })),
  verdict: refTo(VerdictSchema),
  reasoning: Nullable(Type.String({ description: 'Why: the evaluator\'s reasoning, or its error when it failed' }))
}, { $id: 'EvalResult', additionalProperties: false })
export type EvalResult = Static<typeof EvalResultSchema>

export const EvalCaseRunSchema = Type.Object({ workflowId: Type.String(), runId: Type.String() }, {
  $id: 'EvalCaseRun', additionalProperties: false, description: 'The case\'s run; null with `cached`'
})

export const EvalCaseReportSchema = Type.Object({
  name: Type.String(),
  file: Type.String({ description: 'The dataset file, relative to the root of the workflow\'s package (e.g. `src/triage/datasets/refund_request.yml`)' }),
  verdict: refTo(VerdictSchema),
  run: Nullable(refTo(EvalCaseRunSchema)),
  output: Type.Unknown({ description: 'The output evaluated (the run\'s, or the cached one); null when the run failed' }),
  error: Nullable(Type.String({ description: 'Why the case\'s run failed (the case fails); null otherwise' })),
  outputDate: Type.String({ format: 'date-time', description: 'When the evaluated output was made' }),
  results: Type.Array(refTo(EvalResultSchema))
}, { $id: 'EvalCaseReport', additionalProperties: false })
export type EvalCaseReport = Static<typeof EvalCaseReportSchema>

export const EvalTotalsSchema = Type.Object({
  cases: Type.Integer({ minimum: 0 }),
  pass: Type.Integer({ minimum: 0 }),
  partial: Type.Integer({ minimum: 0 }),
  fail: Type.Integer({ minimum: 0 })
}, { $id: 'EvalTotals', additionalProperties: false })
export type EvalTotals = Static<typeof EvalTotalsSchema>

export const EvalEarlierResultSchema = Type.Object({
  name: Type.String(),
  verdict: refTo(VerdictSchema),
  workflowId: Type.String({ description: 'The eval run the verdict comes from' }),
  runId: Type.String()
}, { $id: 'EvalEarlierResult', additionalProperties: false, description: 'A case\'s latest result in an earlier eval run' })
export type EvalEarlierResult = Static<typeof EvalEarlierResultSchema>

export const EvalComparisonSchema = Type.Object({
  workflowId: Type.String({ description: 'The most recent earlier eval run of the workflow that had any of these cases' }),
  runId: Type.String(),
  better: Type.Array(Type.String(), { description: 'Cases whose verdict rose' }),
  worse: Type.Array(Type.String(), { description: 'Cases whose verdict fell' }),
  unchanged: Type.Array(Type.String()),
  new: Type.Array(Type.String(), { description: 'Cases no earlier eval run had' }),
  earlier: Type.Array(refTo(EvalEarlierResultSchema), {
    description: 'What each case was compared with: its own latest earlier result, whatever cases or mode (cached or not) that eval run had'
  })
}, { $id: 'EvalComparison', additionalProperties: false, description: 'Each case compared with its own latest earlier result' })
export type EvalComparison = Static<typeof EvalComparisonSchema>

export const EvalReportSchema = Type.Object({
  workflow: Type.String(),
  cached: Type.Boolean(),
  verdict: refTo(VerdictSchema),
  totals: refTo(EvalTotalsSchema),
  cases: Type.Array(refTo(EvalCaseReportSchema)),
  previous: Nullable(refTo(EvalComparisonSchema))
}, { $id: 'EvalReport', additionalProperties: false, description: 'An eval run\'s result: per case and evaluator the value, verdict and reasoning; totals; the comparison with the previous eval run' })
export type EvalReport = Static<typeof EvalReportSchema>

/**
 * What the previous-run activity answers: each case's latest earlier verdict (with the eval run it
 * comes from; without one, from the top-level run), or null when no earlier eval run had any.
 */
export type PreviousEval = {
  workflowId: string
  runId: string
  cases: Array<Pick<EvalCaseReport, 'name' | 'verdict'> & { workflowId?: string, runId?: string }>
} | null

/** The memo an eval run carries once finished (EVAL_SUMMARY_MEMO_KEY). */
export interface EvalSummary { workflow: string, verdict: Verdict, totals: EvalTotals, cached: boolean }

/** An evaluator's value read as a verdict; a value of the wrong type fails, with the reason. */
export function interpret (how: Interpretation, value: unknown): { verdict: Verdict, problem?: string } {
  const wrong = (expected: string) => ({ verdict: 'fail' as const, problem: `expected a ${expected} value to interpret, got ${JSON.stringify(value)}` })
  switch (how.type) {
    case 'boolean':
      return typeof value === 'boolean' ? { verdict: value ? 'pass' : 'fail' } : wrong('boolean')
    case 'verdict':
      return value === 'pass' || value === 'partial' || value === 'fail' ? { verdict: value } : wrong('pass/partial/fail')
    case 'number':
      if (typeof value !== 'number') return wrong('number')
      return { verdict: value >= how.pass ? 'pass' : how.partial !== undefined && value >= how.partial ? 'partial' : 'fail' }
    case 'string':
      if (typeof value !== 'string') return wrong('string')
      return { verdict: how.pass.includes(value) ? 'pass' : how.partial?.includes(value) === true ? 'partial' : 'fail' }
  }
}

/** A case's verdict: any required fail → fail; else any required partial → partial; else pass. */
export function caseVerdict (results: ReadonlyArray<Pick<EvalResult, 'criticality' | 'verdict'>>): Verdict {
  const required = results.filter((r) => r.criticality === 'required')
  if (required.some((r) => r.verdict === 'fail')) return 'fail'
  if (required.some((r) => r.verdict === 'partial')) return 'partial'
  return 'pass'
}

/** The run's verdict is its worst case's. */
export function totalsOf (verdicts: readonly Verdict[]): { verdict: Verdict, totals: EvalTotals } {
  const count = (v: Verdict) => verdicts.filter((x) => x === v).length
  const totals = { cases: verdicts.length, pass: count('pass'), partial: count('partial'), fail: count('fail') }
  return { verdict: totals.fail > 0 ? 'fail' : totals.partial > 0 ? 'partial' : 'pass', totals }
}

const RANK: Record<Verdict, number> = { fail: 0, partial: 1, pass: 2 }

/** Which cases got better or worse than their own latest earlier result (matched by name). */
export function compare (cases: ReadonlyArray<Pick<EvalCaseReport, 'name' | 'verdict'>>, previous: NonNullable<PreviousEval>): EvalComparison {
  const before = new Map(previous.cases.map((c) => [c.name, c]))
  const comparison: EvalComparison = { workflowId: previous.workflowId, runId: previous.runId, better: [], worse: [], unchanged: [], new: [], earlier: [] }
  for (const { name, verdict } of cases) {
    const was = before.get(name)
    if (was !== undefined) comparison.earlier.push({ name, verdict: was.verdict, workflowId: was.workflowId ?? previous.workflowId, runId: was.runId ?? previous.runId })
    const list = was === undefined ? comparison.new : RANK[verdict] > RANK[was.verdict] ? comparison.better : RANK[verdict] < RANK[was.verdict] ? comparison.worse : comparison.unchanged
    list.push(name)
  }
  return comparison
}

/** Every named schema of evals, in dependency order (the API registers them). */
export const evalSchemas = [
  VerdictSchema, ...InterpretationMembers, InterpretationSchema, CriticalitySchema, EvalEvaluatorSchema, CatalogEvalSchema, EvalResultSchema,
  EvalCaseRunSchema, EvalCaseReportSchema, EvalTotalsSchema, EvalEarlierResultSchema, EvalComparisonSchema, EvalReportSchema
]
