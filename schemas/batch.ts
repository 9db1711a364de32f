/**
 * Schemas of batch operations: one action (terminate, stop, signal, reset) on every run a filter
 * matches, carried out by the engine's batcher (Temporal batch operations). docs/batch.md.
 */
import { Type, type Static } from '@sinclair/typebox'
import { Nullable, VISIBILITY_QUERY_PATTERN, ref } from './common.js'
import { Literals } from './status.js'
import { RunsQuerySchema } from './workflow.js'
import { RESET_REAPPLY } from './reset.js'

const { pageSize: _pageSize, pageToken: _pageToken, ...runFilters } = RunsQuerySchema.properties

export const BatchRunFilterSchema = Type.Object(runFilters, {
  $id: 'BatchRunFilter', additionalProperties: false, description: 'The filters of GET /workflow/runs (all optional; none = every run)'
})

export const BatchQueryFilterSchema = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 10_000, pattern: VISIBILITY_QUERY_PATTERN, description: 'A Temporal visibility query, e.g. `ExecutionStatus = "Running" AND WorkflowType = "approval"`' })
}, { $id: 'BatchQueryFilter', additionalProperties: false, description: 'A Temporal visibility query' })

export const BatchFilterSchema = Type.Union([ref(BatchRunFilterSchema), ref(BatchQueryFilterSchema)], {
  $id: 'BatchFilter', description: 'Which runs: the run-list filters, or a visibility query. Internal runs are never included.'
})

export const BatchSignalSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 1000 }),
  payload: Type.Optional(Type.Unknown({ description: 'The signal\'s argument (not validated against the catalog: the runs may be of several workflows)' }))
}, { $id: 'BatchSignal', additionalProperties: false, description: 'The signal a `signal` batch sends' })

export const BatchResetSchema = Type.Object({
  from: Literals(['start', 'lastWorkflowTask'] as const, {
    description: 'Where each run is reset to. A step by name (and `failedStep`) is a different event in every run\'s history, ' +
      'which a batch cannot express: reset such runs one by one with POST /workflow/{id}/reset'
  }),
  reapply: Type.Optional(Literals(RESET_REAPPLY, { description: 'As for a single reset; default `all`' }))
}, { $id: 'BatchReset', additionalProperties: false, description: 'Where a `reset` batch resets each run to' })

export const BatchBodySchema = Type.Object({
  action: Literals(['terminate', 'stop', 'signal', 'reset'] as const, {
    description: '`terminate`; `stop` (graceful: cancellation, the cleanup runs); `signal` (needs `signal`); `reset` (needs `reset`)'
  }),
  filter: ref(BatchFilterSchema),
  reason: Type.String({ minLength: 1, maxLength: 1000, description: 'Recorded with the batch and in each run\'s history' }),
  signal: Type.Optional(ref(BatchSignalSchema)),
  reset: Type.Optional(ref(BatchResetSchema))
}, {
  $id: 'BatchBody',
  additionalProperties: false,
  examples: [{ action: 'terminate', filter: { workflowName: 'approval', status: 'running' }, reason: 'Cleaning up the demo' }]
})

export const BatchParamsSchema = Type.Object({
  // The ids this API issues are UUIDs; anything else is refused before it reaches the engine.
  batchId: Type.String({ pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$', description: 'The id POST /workflow/batch answered (a UUID)' })
}, { $id: 'BatchParams' })

export const BatchStartedSchema = Type.Object({
  batchId: Type.String(),
  matched: Type.Integer({
    minimum: 0,
    description: 'How many runs the filter matched when the batch started (the engine\'s count of its eventually consistent run ' +
      'list: a run started a moment ago may be missing). 0 = nothing matched; the batch then completes with nothing to do.'
  })
}, { $id: 'BatchStarted', additionalProperties: false, description: 'The batch was accepted; follow it with GET /workflow/batch/{batchId}' })

export const BatchStatusSchema = Type.Object({
  batchId: Type.String(),
  action: Literals(['terminate', 'stop', 'signal', 'reset', 'other'] as const, { description: '`other`: a batch started outside this API' }),
  state: Literals(['running', 'completed', 'failed', 'unknown'] as const, {
    description: '`failed` also for a batch stopped with DELETE (the runs not reached by then are left alone); `unknown`: a state this API ' +
      'does not know'
  }),
  total: Type.Integer({ minimum: 0, description: 'Runs the batch found to act on (grows while it lists them)' }),
  completed: Type.Integer({ minimum: 0, description: 'Runs it acted on' }),
  failed: Type.Integer({ minimum: 0, description: 'Runs it could not act on (e.g. closed meanwhile)' }),
  reason: Type.String(),
  query: Type.String({ description: 'The visibility query the batch runs' }),
  startTime: Nullable(Type.String({ format: 'date-time' })),
  closeTime: Nullable(Type.String({ format: 'date-time', description: 'null while it runs' }))
}, { $id: 'BatchStatus', additionalProperties: false, description: 'Where a batch operation stands' })

export type BatchBody = Static<typeof BatchBodySchema>
export type BatchFilter = Static<typeof BatchFilterSchema>
export type BatchStarted = Static<typeof BatchStartedSchema>
export type BatchStatus = Static<typeof BatchStatusSchema>
