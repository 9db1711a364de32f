/**
 * Schemas of eval runs (docs/evals.md): start one, list a workflow's, read one's
 * report. The report itself is the eval workflow's result, whose schemas live with its rules in
 * core (core/src/eval.ts).
 */
import { Type, type Static } from '@sinclair/typebox'
import { EVAL_ID_PATTERN, evalSchemas, EvalReportSchema, EvalTotalsSchema, VerdictSchema } from '@flowport/core/eval'
import { NAME_PATTERN } from '@flowport/core/contract'
import { Nullable, ref } from './common.js'
import { CatalogIdSchema } from './catalog.js'
import { RunStatusSchema } from './status.js'

export { evalSchemas }

export const StartEvalBodySchema = Type.Object({
  workflowName: Type.String({ pattern: NAME_PATTERN, description: 'The workflow (or an alias) whose eval runs' }),
  catalog: Type.Optional({ ...CatalogIdSchema, description: 'Its catalog; default SERVICE_CATALOG_ID' }),
  datasets: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
    minItems: 1, maxItems: 1000, uniqueItems: true, description: 'The cases (dataset names) to run; default all of them'
  })),
  cached: Type.Optional(Type.Boolean({ description: 'Evaluate each case\'s cached output (`lastOutput` of its dataset file) instead of running the workflow; default false' }))
}, {
  $id: 'StartEvalBody',
  additionalProperties: false,
  examples: [{ workflowName: 'triage' }, { workflowName: 'triage', datasets: ['refund_request'], cached: true }]
})
export type StartEvalBody = Static<typeof StartEvalBodySchema>

export const EvalStartedSchema = Type.Object({
  evalId: Type.String({ description: 'The eval run\'s id (its workflow id)' }),
  runId: Type.String()
}, { $id: 'EvalStarted', additionalProperties: false })

export const EvalParamsSchema = Type.Object({
  evalId: Type.String({ pattern: EVAL_ID_PATTERN, description: 'An eval run\'s id: `eval:<workflow>:<uuid>`' })
}, { $id: 'EvalParams' })

export const EvalsQuerySchema = Type.Object({
  workflowName: Type.String({ pattern: NAME_PATTERN, description: 'The workflow whose eval runs are listed (its canonical name)' }),
  catalog: Type.Optional({ ...CatalogIdSchema, description: 'Only eval runs on this catalog' }),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 }))
}, { $id: 'EvalsQuery', additionalProperties: false })
export type EvalsQuery = Static<typeof EvalsQuerySchema>

const summary = {
  evalId: Type.String({ description: 'The eval run\'s workflow id: its run is a workflow run like any other (status, history, trace)' }),
  runId: Type.String(),
  workflowName: Type.String(),
  catalog: Type.String(),
  status: ref(RunStatusSchema),
  startTime: Type.String({ format: 'date-time' }),
  closeTime: Nullable(Type.String({ format: 'date-time' })),
  cached: Nullable(Type.Boolean({ description: 'Whether it evaluated cached outputs; null until it finished' })),
  verdict: Nullable(ref(VerdictSchema)),
  totals: Nullable(ref(EvalTotalsSchema))
}

export const EvalRunSummarySchema = Type.Object(summary, {
  $id: 'EvalRunSummary', additionalProperties: false, description: 'An eval run; `verdict` and `totals` are null until it completed'
})
export type EvalRunSummary = Static<typeof EvalRunSummarySchema>

export const EvalRunsSchema = Type.Object({
  evals: Type.Array(ref(EvalRunSummarySchema), { description: 'Most recent first' })
}, { $id: 'EvalRuns', additionalProperties: false })
export type EvalRuns = Static<typeof EvalRunsSchema>

export const EvalRunSchema = Type.Object({
  ...summary,
  report: Nullable(ref(EvalReportSchema)),
  error: Nullable(Type.String({ description: 'Why the eval run failed (a dataset it could not read, an unknown case); null otherwise' }))
}, {
  $id: 'EvalRun', additionalProperties: false, description: 'An eval run and, once it completed, its report'
})
export type EvalRun = Static<typeof EvalRunSchema>

export const evalRouteSchemas = [StartEvalBodySchema, EvalStartedSchema, EvalParamsSchema, EvalsQuerySchema, EvalRunSummarySchema, EvalRunsSchema, EvalRunSchema]
