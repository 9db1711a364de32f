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

export function streamErrors (own: { 400: string, 404?: string }) {
  const described: Record<string, string> = { ...STREAM_ERRORS, ...own }
  return Object.fromEntries(Object.entries(described).map(([status, description]) => [status, {
    description,
    content: { 'application/json': { schema: status === '406' ? ref(ErrorResponseSchema) : errors[Number(status) as 400 | 401 | 404 | 429 | 500 | 502 | 503] } }
  }]))
}

/**
 * An event as an SSE parser delivers it, `data` the JSON text of its schema: the OpenAPI 3.2
 * reading that schemathesis and stream-aware generators follow.
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

/** A `oneOf` with a `discriminator` on `event` (a mapping names components, hence the `$id`s). */
export function sseEvents (events: Array<ReturnType<typeof sseEvent>>, description: string) {
  const mapping = Object.fromEntries(events.map((e) => [String(e.properties.event.const), `#/components/schemas/${String(e.$id)}`]))
  return Type.Unsafe({ oneOf: events.map((e) => ref(e)), discriminator: { propertyName: 'event', mapping }, description })
}
