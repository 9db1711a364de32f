/**
 * What every SSE stream's OpenAPI description shares: the JSON errors answered before the stream
 * starts, and its events as an SSE parser delivers them.
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { CURSOR_PATTERN, ErrorResponseSchema, errors, ref } from '../../../schemas/common.js'

/** What every stream answers, as JSON, before its first byte (whatever its success type). */
const STREAM_ERRORS = {
  401: 'UnauthorizedError: the token is missing or wrong',
  406: 'NotAcceptableError: the client does not accept text/event-stream',
  500: 'InternalServerError: an unexpected failure before the stream started',
  429: 'RateLimitedError: the key spent its request budget, or holds SERVICE_STREAMS_MAX_PER_KEY open streams on this replica (`Retry-After` is set)',
  502: 'EngineUnavailableError: the engine failed this request although it answers others',
  503: 'EngineUnavailableError: the engine is unreachable; StreamCapacityError: this replica holds SERVICE_STREAMS_MAX open streams, ' +
    'or (the runs feed) polls SERVICE_RUNS_FEED_MAX_FEEDS distinct filter sets already. `Retry-After` is set'
}

/** The JSON errors of a stream: every stream's, and its own 400 (and 404) described for it. */
export function streamErrors (own: { 400: string, 404?: string }) {
  const described: Record<string, string> = { ...STREAM_ERRORS, ...own }
  return Object.fromEntries(Object.entries(described).map(([status, description]) => [status, {
    description,
    content: { 'application/json': { schema: status === '406' ? ref(ErrorResponseSchema) : errors[Number(status) as 400 | 401 | 404 | 429 | 500 | 502 | 503] } }
  }]))
}

/**
 * One event of the stream as an SSE parser delivers it, `{event, data, id?, retry?}`, with `data`
 * the JSON text of the event's schema (`contentSchema`): the OpenAPI 3.2 reading of a
 * text/event-stream schema, which schemathesis and stream-aware client generators follow. A
 * parser carries the last `id:` over to later events, so `id` may appear on any event. `$id` names
 * it as a component: the stream's union maps each `event` to one (`sseEvents`).
 */
export function sseEvent ($id: string, event: string, data: TSchema, description: string, fields: { id?: 'required', retry?: true, idPattern?: string } = {}) {
  const id = Type.String({ pattern: fields.idPattern ?? CURSOR_PATTERN, description: 'Opaque cursor; reconnect with it as Last-Event-ID' })
  return Type.Object({
    event: Type.Literal(event),
    data: Type.String({ contentMediaType: 'application/json', contentSchema: data }),
    id: fields.id ? id : Type.Optional(id),
    ...(fields.retry ? { retry: Type.Optional(Type.Integer({ minimum: 0, description: 'Reconnect delay hint in milliseconds' })) } : {})
  }, { $id, description, additionalProperties: false })
}

/**
 * A stream's events as a `oneOf` with a `discriminator` on `event`: every event names its kind,
 * and a generator builds the member that kind maps to (a mapping names components, hence `$id`s).
 */
export function sseEvents (events: Array<ReturnType<typeof sseEvent>>, description: string) {
  const mapping = Object.fromEntries(events.map((e) => [String(e.properties.event.const), `#/components/schemas/${String(e.$id)}`]))
  return Type.Unsafe({ oneOf: events.map((e) => ref(e)), discriminator: { propertyName: 'event', mapping }, description })
}
