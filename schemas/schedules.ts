/**
 * Schemas of the schedule endpoints (routes/schedules/): recurring runs of a catalog workflow,
 * kept by the engine (Temporal Schedules). docs/schedules.md describes the behaviour; the request
 * examples name the `hello` example workflow, so Swagger UI's "Try it out" works unedited.
 */
import { Type, type Static } from '@sinclair/typebox'
import { BASE64URL_PATTERN, NOT_IN_QUERY_TEXT, Nullable, QueryTextSchema, ref, ruled } from './common.js'
import { Literals, RunStatusSchema } from './status.js'
import { CatalogIdSchema } from './catalog.js'
import { IF_MATCH_PATTERN } from '../plugins/http/conditional/schema.js'

/** A duration: `"15m"`-style (a whole number and one unit of ms, s, m, h, d) or milliseconds. */
export const DURATION_PATTERN = '^[0-9]{1,12}(ms|s|m|h|d)$'
export const DurationSchema = Type.Union([
  Type.String({ pattern: DURATION_PATTERN, description: 'A whole number and a unit: ms, s, m, h or d', examples: ['15m'] }),
  // int64: generators otherwise type an integer as a 32-bit one (Go's int32), too small for a month in milliseconds.
  Type.Integer({ minimum: 0, maximum: 1e15, format: 'int64', description: 'Milliseconds' })
], { $id: 'Duration', description: 'A duration: `"15m"`-style (ms, s, m, h, d) or milliseconds' })

/**
 * A duration of at least `minMs`, as its schema states it: a pattern that refuses shorter strings
 * (leading zeros aside, the digits of the original's 12 at most) and `minimum` for milliseconds.
 */
function durationAtLeast (minMs: number, pattern: string, words: string, $id: string) {
  return Type.Union([
    Type.String({ maxLength: 14, pattern: ruled(pattern, `must be at least ${words}: a whole number and a unit (ms, s, m, h or d)`), examples: ['15m'] }),
    Type.Integer({ minimum: minMs, maximum: 1e15, format: 'int64', description: 'Milliseconds' })
  ], { $id, description: `A duration of at least ${words}: \`"15m"\`-style (ms, s, m, h, d) or milliseconds` })
}
/** The engine's smallest interval, and its smallest catch-up window (it raises smaller ones silently). */
export const MIN_INTERVAL_MS = 1000
export const MIN_CATCHUP_MS = 10_000
// Named components: generators then give each one type, not one per property that uses it.
const IntervalDurationSchema = durationAtLeast(MIN_INTERVAL_MS, '^0*([1-9][0-9]{3,11}ms|[1-9][0-9]{0,11}(s|m|h|d))$', '1s', 'IntervalDuration')
const CatchupDurationSchema = durationAtLeast(MIN_CATCHUP_MS, '^0*([1-9][0-9]{4,11}ms|[1-9][0-9]{1,11}s|[1-9][0-9]{0,11}(m|h|d))$', '10s', 'CatchupDuration')

export const OVERLAP_POLICIES = ['skip', 'bufferOne', 'bufferAll', 'cancelOther', 'terminateOther', 'allowAll'] as const
export const OverlapPolicySchema = Literals(OVERLAP_POLICIES, {
  $id: 'OverlapPolicy',
  description: 'What happens when a run is due while the previous one is still open: `skip` (default) starts nothing; ' +
    '`bufferOne` starts one run once the open one closes; `bufferAll` starts every missed run in turn; `cancelOther` cancels ' +
    'the open run, then starts; `terminateOther` terminates it and starts; `allowAll` starts at once, runs overlap'
})

/** The fields of a calendar entry, in cron syntax each (`9`, `1-5`, `*\/15`, `MON-FRI`, `8,12,18`). */
const CalendarField = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 200, description }))

export const CalendarSchema = Type.Object({
  second: CalendarField('0–59; default 0'),
  minute: CalendarField('0–59; default 0'),
  hour: CalendarField('0–23; default 0'),
  dayOfMonth: CalendarField('1–31; default *'),
  month: CalendarField('1–12 or JAN–DEC; default *'),
  dayOfWeek: CalendarField('0–7 (0 and 7 are Sunday) or SUN–SAT; default *'),
  year: CalendarField('e.g. 2027; default *'),
  comment: Type.Optional(Type.String({ maxLength: 200 }))
}, {
  $id: 'ScheduleCalendar',
  additionalProperties: false,
  description: 'A calendar entry by named fields, each in cron field syntax; a field left out is `*`, except second, minute ' +
    'and hour, which default to 0 (so `{ "hour": "9" }` is 09:00:00 every day)',
  examples: [{ hour: '9', dayOfWeek: 'MON-FRI' }]
})

export const IntervalSchema = Type.Object({
  interval: ref(IntervalDurationSchema),
  offset: Type.Optional(ref(DurationSchema))
}, {
  $id: 'ScheduleInterval',
  additionalProperties: false,
  // `offset` below `interval` spans two fields, which JSON Schema cannot compare: a 400 that the description states.
  description: 'Every `interval` (at least 1 s), counted from the Unix epoch and shifted by `offset`, which must be less than `interval` ' +
    '(else 400 ValidationError at `offset`)',
  examples: [{ interval: '1h', offset: '15m' }]
})

export const ScheduleSpecSchema = Type.Object({
  cron: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
    maxItems: 50,
    description: 'Cron expressions: 5 fields (minute hour day-of-month month day-of-week), 6 (+ year) or 7 (second first, year last), ' +
      'or @yearly, @monthly, @weekly, @daily, @hourly, `@every <duration>`',
    examples: [['0 9 * * MON-FRI']]
  })),
  every: Type.Optional(Type.Array(ref(IntervalSchema), { maxItems: 50 })),
  calendar: Type.Optional(Type.Array(ref(CalendarSchema), { maxItems: 50 })),
  timezone: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'IANA time zone of the cron and calendar entries (default UTC); daylight-saving transitions are handled by the engine',
    examples: ['Europe/Berlin']
  })),
  startAt: Type.Optional(Type.String({ format: 'date-time', description: 'No run is due before this time' })),
  endAt: Type.Optional(Type.String({ format: 'date-time', description: 'No run is due after this time' })),
  jitter: Type.Optional(ref(DurationSchema))
}, {
  $id: 'ScheduleSpec',
  additionalProperties: false,
  description: 'When runs are due: the union of every `cron`, `every` and `calendar` entry (at least one), within `startAt`–`endAt`, ' +
    'each delayed by a random amount up to `jitter`',
  examples: [{ every: [{ interval: '1m' }] }]
})

export const SchedulePoliciesSchema = Type.Object({
  overlap: Type.Optional(ref(OverlapPolicySchema)),
  catchupWindow: Type.Optional(ref(CatchupDurationSchema)),
  pauseOnFailure: Type.Optional(Type.Boolean({ description: 'Pause the schedule when a run it started fails or times out (default false)' }))
}, {
  $id: 'SchedulePolicies',
  additionalProperties: false,
  description: '`overlap`: see OverlapPolicy. `catchupWindow`: how late a due run may still start after the engine was unavailable ' +
    '(default 1 year, at least 10 s). `pauseOnFailure`: pause after a failed run'
})

const scheduleFields = {
  workflowName: Type.String({ minLength: 1, maxLength: 1000, description: 'Workflow name or alias in the catalog (the canonical name is stored)', examples: ['hello'] }),
  catalog: Type.Optional({ ...CatalogIdSchema, description: 'Catalog (= Temporal task queue) the runs execute on; default SERVICE_CATALOG_ID' }),
  input: Type.Unknown({ description: 'The input of every run; validated against the catalog\'s inputSchema before the schedule is stored', examples: [{ name: 'Ada' }] }),
  spec: ref(ScheduleSpecSchema),
  policies: Type.Optional(ref(SchedulePoliciesSchema)),
  paused: Type.Optional(Type.Boolean({ description: 'Create (or keep) the schedule paused (default false)' })),
  note: Type.Optional(Type.String({ maxLength: 1000, description: 'Free text kept with the paused state, e.g. why it is paused' }))
}

/** The engine's limit on ids, as for workflow ids; `/` would not survive a path segment in every proxy; runs are listed by it (a query value). */
export const ScheduleIdSchema = Type.String({ minLength: 1, maxLength: 200, pattern: `^[^/${NOT_IN_QUERY_TEXT}]+$`, description: 'Schedule id', examples: ['nightly-report'] })

export const CreateScheduleBodySchema = Type.Object({
  scheduleId: Type.Optional({ ...ScheduleIdSchema, description: 'Schedule id (default: a random UUID); an id in use is a 409' }),
  ...scheduleFields
}, {
  $id: 'CreateScheduleBody',
  additionalProperties: false,
  examples: [{ workflowName: 'hello', input: { name: 'Ada' }, spec: { every: [{ interval: '1m' }] } }]
})

export const UpdateScheduleBodySchema = Type.Object(scheduleFields, {
  $id: 'UpdateScheduleBody',
  additionalProperties: false,
  description: 'The whole schedule; replaces everything stored (a field left out takes its default)',
  examples: [{ workflowName: 'hello', input: { name: 'Grace' }, spec: { every: [{ interval: '2m' }] } }]
})

export const UpdateScheduleHeadersSchema = Type.Object({
  'if-match': Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: IF_MATCH_PATTERN,
    description: 'The `ETag` of the schedule as last read (GET /schedules/{scheduleId}); a schedule changed since is a 412',
    examples: ['"AAAAAAAAAAE"']
  })
}, { $id: 'UpdateScheduleHeaders' })

export const ScheduleParamsSchema = Type.Object({ scheduleId: ScheduleIdSchema }, { $id: 'ScheduleParams' })

export const ScheduleCreatedSchema = Type.Object({
  scheduleId: Type.String()
}, { $id: 'ScheduleCreated', additionalProperties: false, description: 'The schedule is stored by the engine' })

export const ScheduleNoteBodySchema = Type.Object({
  note: Type.Optional(Type.String({ maxLength: 1000, description: 'Why; kept as the schedule\'s note' }))
}, { $id: 'ScheduleNoteBody', additionalProperties: false, examples: [{ note: 'paused during the migration' }] })

export const ScheduleTriggerBodySchema = Type.Object({
  overlap: Type.Optional(ref(OverlapPolicySchema))
}, { $id: 'ScheduleTriggerBody', additionalProperties: false, description: 'Start one run now; `overlap` default: the schedule\'s', examples: [{}] })

export const ScheduleBackfillBodySchema = Type.Object({
  startAt: Type.String({ format: 'date-time', description: 'Start of the range (inclusive of a time due exactly then)' }),
  endAt: Type.String({ format: 'date-time', description: 'End of the range' }),
  overlap: Type.Optional(ref(OverlapPolicySchema))
}, {
  $id: 'ScheduleBackfillBody',
  additionalProperties: false,
  description: 'Start the runs that were due in a past range now, as if the schedule had run then; `overlap` default: the schedule\'s',
  examples: [{ startAt: '2026-01-01T00:00:00Z', endAt: '2026-01-01T00:05:00Z', overlap: 'allowAll' }]
})

const IsoTime = (description: string) => Type.String({ format: 'date-time', description })

export const ScheduleActionSchema = Type.Object({
  scheduledAt: IsoTime('When the run was due (before jitter)'),
  startedAt: IsoTime('When the engine started it'),
  workflowId: Type.String(),
  runId: Type.String(),
  status: ref(RunStatusSchema)
}, { $id: 'ScheduleAction', additionalProperties: false, description: 'A run the schedule started' })

export const ScheduleStateSchema = Type.Object({
  paused: Type.Boolean(),
  note: Nullable(Type.String({ description: 'The note of the last pause, unpause or update; null when none' }))
}, { $id: 'ScheduleState', additionalProperties: false })

/** The policies a schedule holds, every one set (SchedulePolicies is what a request may set). */
export const ScheduleAppliedPoliciesSchema = Type.Object({
  overlap: ref(OverlapPolicySchema),
  catchupWindow: Type.Integer({ format: 'int64', description: 'Milliseconds (a year by default: beyond a 32-bit integer)' }),
  pauseOnFailure: Type.Boolean()
}, { $id: 'ScheduleAppliedPolicies', additionalProperties: false, description: 'The schedule\'s policies as the engine holds them, defaults filled in' })

export const ScheduleSchema = Type.Object({
  scheduleId: Type.String(),
  workflowName: Type.String({ description: 'Canonical workflow name' }),
  catalog: Type.String(),
  input: Type.Unknown({ description: 'The input of every run' }),
  spec: ref(ScheduleSpecSchema),
  policies: ref(ScheduleAppliedPoliciesSchema),
  state: ref(ScheduleStateSchema),
  nextActionTimes: Type.Array(IsoTime('When a run is due'), { maxItems: 5, description: 'The next (at most) 5 times a run is due' }),
  recentActions: Type.Array(ref(ScheduleActionSchema), { maxItems: 10, description: 'The last (at most) 10 runs it started, oldest first' }),
  actionsTaken: Type.Integer({ minimum: 0, description: 'Runs started so far (triggers and backfills included)' }),
  actionsSkippedOverlap: Type.Integer({ minimum: 0, description: 'Due runs skipped by the overlap policy' }),
  actionsMissedCatchupWindow: Type.Integer({ minimum: 0, description: 'Due runs dropped because they were later than `catchupWindow`' }),
  createdAt: IsoTime('When the schedule was created'),
  updatedAt: Nullable(IsoTime('When it was last updated; null if never')),
  warnings: Type.Array(Type.String(), {
    description: 'What would make its runs fail: the workflow is no longer in its catalog, its input schema no longer accepts ' +
      'the stored input, the catalog is not available'
  })
}, { $id: 'Schedule', additionalProperties: false, description: 'A schedule: what it starts, when, and what it started. `ETag` is its conflict token' })

export const ScheduleSummarySchema = Type.Object({
  scheduleId: Type.String(),
  workflowName: Type.String(),
  catalog: Type.String(),
  state: ref(ScheduleStateSchema),
  nextActionTimes: Type.Array(IsoTime('When a run is due'), { maxItems: 5 })
}, { $id: 'ScheduleSummary', additionalProperties: false })

export const SchedulesQuerySchema = Type.Object({
  workflowName: Type.Optional(Type.String({ ...QueryTextSchema, description: 'Only schedules of this workflow (canonical name)' })),
  catalog: Type.Optional(CatalogIdSchema),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Maximum schedules per page' })),
  pageToken: Type.Optional(Type.String({
    maxLength: 8192,
    pattern: BASE64URL_PATTERN,
    description: 'The nextPageToken of the previous page (opaque); a token this listing did not issue for these filters is a 400'
  }))
}, { $id: 'SchedulesQuery', additionalProperties: false })

export const SchedulesSchema = Type.Object({
  schedules: Type.Array(ref(ScheduleSummarySchema)),
  nextPageToken: Nullable(Type.String({ maxLength: 8192, pattern: BASE64URL_PATTERN, description: 'Pass as pageToken (same filters) for the next page; null on the last page' }))
}, { $id: 'Schedules', additionalProperties: false, description: 'One page of schedules; a page may hold fewer than pageSize (the filters apply after paging)' })

export const scheduleSchemas = [
  DurationSchema, IntervalDurationSchema, CatchupDurationSchema, OverlapPolicySchema, CalendarSchema, IntervalSchema, ScheduleSpecSchema, SchedulePoliciesSchema,
  CreateScheduleBodySchema, UpdateScheduleBodySchema, UpdateScheduleHeadersSchema, ScheduleParamsSchema, ScheduleCreatedSchema,
  ScheduleNoteBodySchema, ScheduleTriggerBodySchema, ScheduleBackfillBodySchema, ScheduleActionSchema, ScheduleStateSchema,
  ScheduleAppliedPoliciesSchema, ScheduleSchema, ScheduleSummarySchema, SchedulesQuerySchema, SchedulesSchema
]

export type OverlapPolicy = Static<typeof OverlapPolicySchema>
export type ScheduleSpecBody = Static<typeof ScheduleSpecSchema>
export type SchedulePolicies = Static<typeof SchedulePoliciesSchema>
export type CreateScheduleBody = Static<typeof CreateScheduleBodySchema>
export type UpdateScheduleBody = Static<typeof UpdateScheduleBodySchema>
export type Schedule = Static<typeof ScheduleSchema>
export type ScheduleSummary = Static<typeof ScheduleSummarySchema>
export type SchedulesQuery = Static<typeof SchedulesQuerySchema>
