/**
 * The execution trace document (version 1): one per run, a projection of the run's history in
 * Flowport's words (steps, evaluators, child workflows, the cleanup of a graceful stop) plus the
 * failed attempts of retried steps, which the engine's history does not keep. Named schemas: the
 * API publishes them as components of its OpenAPI document, so generated clients get the type.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'

export const TRACE_VERSION = 1

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
const Time = (description: string) => Nullable(Type.String({ format: 'date-time', description }))
const Value = (description: string) => Type.Unknown({
  description: `${description}. A value whose JSON is larger than SERVICE_TRACE_MAX_VALUE_BYTES is replaced by a marker (TraceTruncatedValue): \`{"$truncated": {"bytes", "limit", "preview"}}\``
})
const FailureCause = Type.Unsafe<Record<string, unknown>>(Type.Ref('FailureCause'))
/** A `$ref` to a named schema of this file that keeps its static type (Type.Ref alone loses it). */
const ref = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T>>(Type.Ref(String(schema.$id)))

export const TraceTruncationSchema = Type.Object({
  bytes: Type.Integer({ description: 'Size of the value\'s JSON in bytes' }),
  limit: Type.Integer({ description: 'SERVICE_TRACE_MAX_VALUE_BYTES when the trace was written' }),
  preview: Type.String({ description: 'The first characters of the value\'s JSON' })
}, { $id: 'TraceTruncation', additionalProperties: false, description: 'What was left out of a value too large to record' })

export const TraceTruncatedValueSchema = Type.Object({
  $truncated: ref(TraceTruncationSchema)
}, { $id: 'TraceTruncatedValue', additionalProperties: false, description: 'Marker standing for a value too large to record' })

export const TraceErrorSchema = Type.Object({
  name: Type.String({ description: 'Error name (an application error\'s type, e.g. ExplosionError, or TimeoutFailure, CanceledFailure, …)' }),
  message: Type.String(),
  retryable: Nullable(Type.Boolean({ description: 'Whether the engine would retry it; null if unknown' })),
  cause: Nullable(FailureCause)
}, { $id: 'TraceError', additionalProperties: false, description: 'A sanitized failure: names and messages, never stacks' })

const Outcome = Type.Union(['running', 'completed', 'failed', 'canceled', 'timed_out', 'terminated'].map((s) => Type.Literal(s)))

export const TraceAttemptSchema = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  status: Type.Union([Outcome, Type.Literal('unknown')], {
    description: '`unknown`: an attempt the worker could not record (it crashed or its step timed out before it could); the engine only kept its number'
  }),
  startTime: Time('When the attempt started'),
  endTime: Time('When it ended; null while running or unknown'),
  error: Nullable(ref(TraceErrorSchema))
}, { $id: 'TraceAttempt', additionalProperties: false, description: 'One try of a step or evaluator. Every attempt gets the node\'s input; only the last can have an output' })

export const TraceEvaluationSchema = Type.Object({
  score: Type.Number({ minimum: 0, maximum: 1 }),
  reasoning: Type.Optional(Type.String())
}, { $id: 'TraceEvaluation', additionalProperties: false })

export const TraceChildLinkSchema = Type.Object({
  workflowId: Type.String(),
  runId: Nullable(Type.String({ description: 'Null until the child has started' })),
  workflowName: Type.String()
}, { $id: 'TraceChildLink', additionalProperties: false, description: 'A child run; its own trace is at GET /workflow/{workflowId}/runs/{runId}/trace-log' })

export const TraceNodeSchema = Type.Object({
  id: Type.String({ description: 'Unique across runs: `<runId>/<activity id>` for steps and evaluators, `<runId>/child/<event id>` for child workflows' }),
  kind: Type.Union([Type.Literal('step'), Type.Literal('evaluator'), Type.Literal('child')]),
  name: Type.String({ description: 'Step or evaluator name, or the child\'s workflow name' }),
  type: Type.String({ description: 'Temporal activity type (`workflow#step`) or child workflow type' }),
  phase: Type.Union([Type.Literal('run'), Type.Literal('cleanup')], { description: '`cleanup`: scheduled after a graceful stop was requested' }),
  status: Outcome,
  scheduledTime: Time('When workflow code called it'),
  startTime: Time('When its last attempt (or the child run) started'),
  endTime: Time('When it ended'),
  input: Value('What it was called with'),
  output: Value('What it returned; null unless completed'),
  error: Nullable(ref(TraceErrorSchema)),
  attempts: Type.Array(ref(TraceAttemptSchema), { description: 'Every attempt in order (steps and evaluators; empty for a child); of a step that tried more than 20 times, the first 10 and the last 10' }),
  attemptsOmitted: Type.Optional(Type.Integer({ minimum: 1, description: 'How many attempts between the first 10 and the last 10 are left out of `attempts` (absent: none)' })),
  evaluation: Type.Union([ref(TraceEvaluationSchema), Type.Null()], { description: 'An evaluator\'s score once it completed' }),
  child: Nullable(ref(TraceChildLinkSchema))
}, { $id: 'TraceNode', additionalProperties: false, description: 'A step, evaluator or child workflow call' })

export const TraceRunLinkSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String()
}, { $id: 'TraceRunLink', additionalProperties: false })

export const TraceResetOriginSchema = Type.Object({
  runId: Type.String({ description: 'The run that was reset' }),
  eventId: Type.Integer({ description: 'The reset point: the workflow task event of that run this run continues from' }),
  time: Time('When the reset was made')
}, {
  $id: 'TraceResetOrigin',
  additionalProperties: false,
  description: 'For a run made by a reset ("retry from here"): the calls whose times are before `time` are the old run\'s, ' +
    'replayed from its history and not run again; the others ran in this run. null otherwise (absent in traces written before it existed)'
})

export const TraceWorkflowTaskFailureSchema = Type.Object({
  message: Type.String(),
  time: Time('When the workflow task failed')
}, {
  $id: 'TraceWorkflowTaskFailure',
  additionalProperties: false,
  description: 'Set while the run\'s last workflow task failed and none completed since: the workflow code fails (e.g. its history ' +
    'no longer replays after a deploy or a reset) and the run does not move; the engine retries the task. null otherwise'
})

export const TraceWorkflowSchema = Type.Object({
  id: Type.String({ description: 'Node id of the run: its run id' }),
  name: Type.String({ description: 'Workflow type as started (a workflow name or one of its aliases)' }),
  workflowId: Type.String(),
  runId: Type.String(),
  catalog: Type.String(),
  parent: Type.Union([ref(TraceRunLinkSchema), Type.Null()], { description: 'The parent run of a child workflow' }),
  previousRunId: Nullable(Type.String({ description: 'The run this one continues (continue-as-new)' })),
  startedBy: Type.Optional(Nullable(Type.String({
    description: 'The id of the API key that started the run (as in its status); null when auth was off or the run was started ' +
      'outside the API. Absent from traces written before it was recorded'
  }))),
  nextRunId: Nullable(Type.String({ description: 'The run that continues this one (continue-as-new, or a retry or cron run)' })),
  status: Type.Union([Outcome, Type.Literal('continued_as_new')]),
  startTime: Time('When the run started'),
  closeTime: Time('When the run closed; null while open'),
  stopRequestedTime: Time('When a graceful stop was requested; its cleanup nodes follow'),
  resetFrom: Type.Optional(Nullable(ref(TraceResetOriginSchema))),
  workflowTaskFailure: Type.Optional(Nullable(ref(TraceWorkflowTaskFailureSchema))),
  input: Value('The start input'),
  output: Value('What the run returned; null unless completed'),
  error: Nullable(ref(TraceErrorSchema))
}, { $id: 'TraceWorkflow', additionalProperties: false })

export const TraceScoreSchema = Type.Object({
  nodeId: Type.String(),
  evaluator: Type.String(),
  score: Type.Number(),
  reasoning: Nullable(Type.String())
}, { $id: 'TraceScore', additionalProperties: false, description: 'A completed evaluator\'s score' })

export const TraceSchema = Type.Object({
  // An integer enum, not a `number` const: generators type it as an int (Java's `native` library fails on a number enum).
  version: Type.Unsafe<typeof TRACE_VERSION>({ type: 'integer', enum: [TRACE_VERSION] }),
  workflow: ref(TraceWorkflowSchema),
  nodes: Type.Array(ref(TraceNodeSchema), { description: 'Steps, evaluators and child workflows in the order workflow code called them' }),
  evaluations: Type.Array(ref(TraceScoreSchema), { description: 'The scores of every completed evaluator, in order' })
}, { $id: 'Trace', additionalProperties: false, description: 'The execution trace of one run (version 1)' })

/** Every named trace schema, in dependency order. */
export const traceSchemas = [
  TraceTruncationSchema, TraceTruncatedValueSchema, TraceErrorSchema, TraceAttemptSchema, TraceEvaluationSchema, TraceChildLinkSchema, TraceNodeSchema,
  TraceRunLinkSchema, TraceResetOriginSchema, TraceWorkflowTaskFailureSchema, TraceWorkflowSchema, TraceScoreSchema, TraceSchema
]

export type TraceOutcome = Static<typeof Outcome>
export type TraceError = Static<typeof TraceErrorSchema>
export type TraceAttempt = Static<typeof TraceAttemptSchema>
export type TraceNode = Static<typeof TraceNodeSchema>
export type TraceWorkflow = Static<typeof TraceWorkflowSchema>
export type Trace = Static<typeof TraceSchema>

/** What the worker records of a failed attempt (the engine keeps only the last one). */
export interface AttemptRecord {
  activityId: string
  attempt: number
  status: 'failed' | 'canceled'
  startTime: string
  endTime: string
  error: TraceError
  /** A local step's input (the engine records none for a local activity; core/src/local-step.ts). */
  input?: unknown
}
