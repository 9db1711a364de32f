/**
 * History page and live stream. Events are the engine's canonical JSON form;
 * the schema names the fields every event has and lets the rest through.
 */
import { AttentionSchema } from './reset.js'
import { Type, type Static } from '@sinclair/typebox'
import { BASE64URL_PATTERN, CURSOR_PATTERN, Nullable, ref } from './common.js'
import { RunStatusSchema } from './status.js'

/** A history page token (lib/page-token.ts: a digest, the run it pins and the engine's token) as canonical base64url. */
const PageToken = (description: string) => Type.String({ minLength: 12, maxLength: 8192, pattern: BASE64URL_PATTERN, description })
const Cursor = (description: string) => Type.String({ minLength: 32, maxLength: 32, pattern: CURSOR_PATTERN, description })
const IncludePayloads = Type.Optional(Type.Boolean({
  default: false,
  description: 'Decode every payload (inputs, results, failure details, signal and update arguments, memo, headers, search attributes) to its JSON value; without it payloads are removed. A payload that is not JSON (binary, codec-encrypted) keeps its `{metadata, data}` form.'
}))

export const HistoryEventSchema = Type.Object({
  eventId: Type.String({ pattern: '^[0-9]+$', description: 'int64 as a decimal string' }),
  eventTime: Type.String({ format: 'date-time', description: 'RFC 3339, up to nanoseconds' }),
  eventType: Type.String({ pattern: '^EVENT_TYPE_', examples: ['EVENT_TYPE_WORKFLOW_EXECUTION_STARTED'] }),
  taskId: Type.Optional(Type.String())
}, {
  $id: 'HistoryEvent',
  additionalProperties: true,
  description: 'A Temporal history event in the protobuf JSON mapping (as `temporal workflow show --output json` prints it): one `…EventAttributes` object per event, string int64s, RFC 3339 times, durations like "10s", enum names.'
})

export const HistoryWorkflowSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String(),
  status: ref(RunStatusSchema),
  startTime: Nullable(Type.String({ format: 'date-time' })),
  closeTime: Nullable(Type.String({ format: 'date-time' })),
  historyLength: Type.Integer({ minimum: 0 }),
  taskQueue: Type.String(),
  attention: Type.Optional(Type.Union([ref(AttentionSchema), Type.Null()], {
    description: 'In a stream\'s `workflow` event: set when the run\'s workflow task keeps failing as the stream connects (the ' +
      '`WorkflowTaskFailed` event in the stream says so as it happens); null otherwise. Absent in history pages.'
  }))
}, { $id: 'HistoryWorkflow', additionalProperties: false, description: 'The run the history belongs to, as it was when the page was read or the stream connected' })

export const HistoryQuerySchema = Type.Object({
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Maximum events per page (a page may hold fewer)' })),
  pageToken: Type.Optional(PageToken('`nextPageToken` of the previous page (it pins the run, so paging never mixes runs); a token of another run or one the engine no longer knows is a 400')),
  includePayloads: IncludePayloads
}, { $id: 'HistoryQuery', additionalProperties: false })

export const HistoryPageSchema = Type.Object({
  workflow: ref(HistoryWorkflowSchema),
  events: Type.Array(ref(HistoryEventSchema)),
  nextPageToken: Nullable(PageToken('Opaque (base64url); pass it as pageToken for the next page; null on the last page'))
}, { $id: 'HistoryPage', additionalProperties: false, description: 'One page of a run\'s history events' })

export const HistoryStreamQuerySchema = Type.Object({
  includePayloads: IncludePayloads,
  lastEventId: Type.Optional(Cursor('Resume after this event id (the `id:` of a received event); the `Last-Event-ID` header wins when both are sent. ' +
    'One naming a run this workflow does not have is a 404; one ahead of its run\'s history, or of another run on the pinned route, a 400')),
  // Empty counts as absent (plugins/app/access/index.ts): then the Authorization header decides. A plain parameter,
  // not a security scheme, so that generated clients do not fill it with their API key.
  runToken: Type.Optional(Type.String({
    maxLength: 4096,
    description: 'A run token (POST /tokens) and nothing else, for EventSource clients that cannot send headers (never logged); empty is ' +
      'the same as absent. An API key here is refused (401 UnauthorizedError) even beside a valid `Authorization` header: send keys ' +
      'in the header only. `access_token`, its older name, is still read'
  }))
}, { $id: 'HistoryStreamQuery', description: 'Unknown parameters are ignored (EventSource polyfills add their own)' })

/** Why a stream's run ended: its close event's type without the `EVENT_TYPE_` prefix. */
export const TERMINAL_REASONS = [
  'WORKFLOW_EXECUTION_COMPLETED', 'WORKFLOW_EXECUTION_FAILED', 'WORKFLOW_EXECUTION_TIMED_OUT',
  'WORKFLOW_EXECUTION_CANCELED', 'WORKFLOW_EXECUTION_TERMINATED', 'WORKFLOW_EXECUTION_CONTINUED_AS_NEW'
] as const
export type TerminalReason = typeof TERMINAL_REASONS[number]

export const HistoryStreamHeadersSchema = Type.Object({
  'last-event-id': Type.Optional(Type.String({
    maxLength: 32,
    pattern: '^(?:[A-Za-z0-9_-]{32})?$',
    description: 'What an EventSource sends on reconnect: the `id:` of the last event received (empty = none). Wins over `?lastEventId=`'
  }))
}, { $id: 'HistoryStreamHeaders' })

export const HistoryStreamDoneSchema = Type.Object({
  reason: Type.Union(TERMINAL_REASONS.map((r) => Type.Literal(r))),
  newRunId: Type.Optional(Type.String({ description: 'Only when the terminal event chains a new run (continue-as-new, cron, retry)' }))
}, { $id: 'HistoryStreamDone', additionalProperties: false })

export const HistoryStreamServerErrorSchema = Type.Object({
  error: Type.String(),
  message: Type.String(),
  workflowId: Type.String(),
  runId: Type.String()
}, { $id: 'HistoryStreamServerError', additionalProperties: false })

export type HistoryWorkflow = Static<typeof HistoryWorkflowSchema>
export type HistoryPage = Static<typeof HistoryPageSchema>
export type HistoryQuery = Static<typeof HistoryQuerySchema>
export type HistoryStreamDone = Static<typeof HistoryStreamDoneSchema>
export type HistoryStreamServerError = Static<typeof HistoryStreamServerErrorSchema>
