/**
 * The OpenAPI description of the history stream's responses: the SSE events as a parser delivers
 * them, and the JSON errors answered before the stream starts.
 */
import { Type } from '@sinclair/typebox'
import { ref } from './common.js'
import { sseEvent, sseEvents, streamErrors } from '../plugins/external/sse/schema.js'
import { HistoryEventSchema, HistoryStreamDoneSchema, HistoryStreamServerErrorSchema, HistoryWorkflowSchema } from './history.js'

const sseDescription = [
  'A text/event-stream. Events: `workflow` (HistoryWorkflow) on every connect, with a `retry:` hint;',
  '`history` (array of HistoryEvent, with an `id:`) per batch of new events; `done` (HistoryStreamDone, with an `id:`)',
  'when the run ends, then the stream closes; `server_error` (HistoryStreamServerError) after a failure, then the stream closes.',
  'Comments (`: heartbeat`) every 15 s (SERVICE_SSE_HEARTBEAT_MS). Resume with `Last-Event-ID` (or `?lastEventId=`): exactly the unseen events follow.'
].join(' ')

export const historySseSchemas = [
  sseEvent('HistorySseWorkflow', 'workflow', ref(HistoryWorkflowSchema), 'First event of every connection: the run being streamed', { retry: true }),
  sseEvent('HistorySseHistory', 'history', Type.Array(ref(HistoryEventSchema)), 'A batch of events the client has not seen', { id: 'required' }),
  sseEvent('HistorySseDone', 'done', ref(HistoryStreamDoneSchema), 'The run closed; the stream ends', { id: 'required' }),
  sseEvent('HistorySseServerError', 'server_error', ref(HistoryStreamServerErrorSchema), 'The stream failed; it ends (reconnect to resume)')
]

const streamEvent = sseEvents(historySseSchemas, 'One event of the stream')

export const streamResponses = {
  200: {
    description: sseDescription,
    content: { 'text/event-stream': { schema: streamEvent } }
  },
  204: Type.Null({ description: 'The cursor is at `done`: nothing more will come (EventSource stops reconnecting)' }),
  ...streamErrors({
    400: 'ValidationError: an invalid parameter, or a Last-Event-ID / lastEventId ahead of its run\'s history or of another run of the pinned one',
    404: 'WorkflowNotFoundError: no such workflow, run, or run named by Last-Event-ID / lastEventId'
  })
}
