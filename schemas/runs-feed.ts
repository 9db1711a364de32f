/**
 * GET /workflow/runs/stream: the runs change feed (plugins/app/runs-feed/). Its filters are those of
 * GET /workflow/runs; its events are SSE frames described as a parser delivers them.
 */
import { Type, type Static } from '@sinclair/typebox'
import { ref } from './common.js'
import { RunsQuerySchema, WorkflowStatusSchema } from './workflow.js'
import { sseEvent, sseEvents, streamErrors } from '../plugins/external/sse/schema.js'

/** What a feed id looks like (plugins/app/runs-feed/position.ts): `<ms>`, or `<ms>.s.<runId>` / `<ms>.c.<runId>`. */
export const POSITION_PATTERN = '^\\d{1,15}(?:\\.[sc]\\.[0-9A-Za-z-]{1,64})?$'

const { pageSize: _pageSize, pageToken: _pageToken, ...filters } = RunsQuerySchema.properties

const FeedId = (description: string) => Type.String({ maxLength: 96, pattern: POSITION_PATTERN, description })

export const RunsFeedQuerySchema = Type.Object({
  ...filters,
  lastEventId: Type.Optional(FeedId('Resume after this event id (the `id:` of a received frame); the `Last-Event-ID` header wins when both are sent'))
}, { $id: 'RunsFeedQuery', additionalProperties: false, description: 'The filters of GET /workflow/runs, without paging' })

export const RunsFeedHeadersSchema = Type.Object({
  'last-event-id': Type.Optional(Type.String({
    maxLength: 96,
    pattern: `^$|${POSITION_PATTERN}`,
    description: 'What an EventSource sends on reconnect: the `id:` of the last frame received (empty = none). Wins over `?lastEventId=`'
  }))
}, { $id: 'RunsFeedHeaders' })

export const RunChangeSchema = Type.Object({
  change: Type.Union([Type.Literal('started'), Type.Literal('closed')], { description: 'The run started, or it closed (any terminal status, continued-as-new included)' }),
  at: Type.String({ format: 'date-time', description: 'When: the run\'s start or close time as the engine recorded it' }),
  run: ref(WorkflowStatusSchema)
}, { $id: 'RunChange', additionalProperties: false, description: 'A run started or closed; `run` is its status when the feed read the change (a start read after the run closed shows it closed)' })

export const RunsFeedOpenSchema = Type.Object({
  from: Type.String({ format: 'date-time', description: 'Changes from this instant on follow (the resume position, or now less the delay)' }),
  delayMs: Type.Integer({ minimum: 0, description: 'How old a change is before the feed sends it (SERVICE_RUNS_FEED_DELAY_MS): the visibility store lists runs a little late' }),
  resumeMs: Type.Integer({ minimum: 0, description: 'How far back a Last-Event-ID may reach (SERVICE_RUNS_FEED_RESUME_MS)' })
}, { $id: 'RunsFeedOpen', additionalProperties: false, description: 'First frame of every connection' })

export const RunsFeedProgressSchema = Type.Object({
  before: Type.String({ format: 'date-time', description: 'Every change before this instant has been sent (for the client\'s resume position)' })
}, { $id: 'RunsFeedProgress', additionalProperties: false, description: 'The heartbeat: where the feed stands, so a quiet client resumes from there' })

export const RunsFeedExpiredSchema = Type.Object({
  lastEventId: Type.String(),
  message: Type.String()
}, { $id: 'RunsFeedExpired', additionalProperties: false, description: 'The Last-Event-ID was older than the feed replays: the changes before `from` were not sent' })

export const RunsFeedErrorSchema = Type.Object({
  error: Type.String(),
  message: Type.String()
}, { $id: 'RunsFeedError', additionalProperties: false, description: 'Reading what a resuming client missed failed; the stream ends (reconnect to resume)' })

export type RunsFeedQuery = Static<typeof RunsFeedQuerySchema>
export type RunChange = Static<typeof RunChangeSchema>
export type RunsFeedOpen = Static<typeof RunsFeedOpenSchema>
export type RunsFeedProgress = Static<typeof RunsFeedProgressSchema>

const description = [
  'A text/event-stream. Frames: `feed` (RunsFeedOpen, with an `id:` and a `retry:` hint) on every connect; `expired` (RunsFeedExpired)',
  'right after it when Last-Event-ID is older than the feed replays; `run` (RunChange, with an `id:`) for every run that started or',
  'closed; `progress` (RunsFeedProgress, with an `id:`) every 15 s (SERVICE_SSE_HEARTBEAT_MS) as the heartbeat;',
  '`server_error` (RunsFeedError) when reading what a resuming client missed failed, then the stream ends.',
  'Resume with `Last-Event-ID` (or `?lastEventId=`): exactly the changes after it follow, in order, none twice.'
].join(' ')

const feedSseSchemas = [
  sseEvent('RunsFeedSseFeed', 'feed', ref(RunsFeedOpenSchema), 'First frame of every connection', { id: 'required', retry: true, idPattern: POSITION_PATTERN }),
  sseEvent('RunsFeedSseExpired', 'expired', ref(RunsFeedExpiredSchema), 'The Last-Event-ID was too old; later changes follow', { idPattern: POSITION_PATTERN }),
  sseEvent('RunsFeedSseRun', 'run', ref(RunChangeSchema), 'A run started or closed', { id: 'required', idPattern: POSITION_PATTERN }),
  sseEvent('RunsFeedSseProgress', 'progress', ref(RunsFeedProgressSchema), 'The heartbeat: where the feed stands', { id: 'required', idPattern: POSITION_PATTERN }),
  sseEvent('RunsFeedSseServerError', 'server_error', ref(RunsFeedErrorSchema), 'The feed failed for this client; it ends', { idPattern: POSITION_PATTERN })
]

const feedEvent = sseEvents(feedSseSchemas, 'One frame of the feed')

export const runsFeedResponses = {
  200: { description, content: { 'text/event-stream': { schema: feedEvent } } },
  ...streamErrors({ 400: 'ValidationError: an invalid filter, or an event id that is malformed or ahead of now' })
}

export const runsFeedSchemas = [RunsFeedQuerySchema, RunsFeedHeadersSchema, RunChangeSchema, RunsFeedOpenSchema, RunsFeedProgressSchema, RunsFeedExpiredSchema, RunsFeedErrorSchema, ...feedSseSchemas]
