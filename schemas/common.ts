/**
 * Schemas shared by every route group: errors, path parameters, the `ref` helper.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox'

/** A `$ref` to a named schema that keeps its static type (Type.Ref alone loses it in 0.34). */
export function ref<T extends TSchema> (schema: T) {
  return Type.Unsafe<Static<T>>(Type.Ref(String(schema.$id)))
}

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const IssueSchema = Type.Object({
  path: Type.String({ description: 'JSON pointer to the offending value within `in`' }),
  in: Type.Union(['body', 'querystring', 'params', 'headers', 'input', 'payload'].map((v) => Type.Literal(v)), {
    description: 'Which part of the request the path points into (`input`/`payload`: the workflow input or handler payload)'
  }),
  message: Type.String()
}, { $id: 'Issue', additionalProperties: false })

/**
 * Every `error` name the API sends, whatever the status. ApiError only takes these (lib/api-error.ts)
 * and test/openapi.test.ts checks that each one is sent somewhere and documented.
 */
export const ERROR_NAMES = [
  'ValidationError', 'UnauthorizedError', 'WorkflowNotFoundError', 'RouteNotFoundError', 'SignalNotFoundError',
  'QueryNotFoundError', 'UpdateNotFoundError', 'MethodNotAllowedError', 'NotAcceptableError', 'WorkflowExecutionTimedOutError',
  'RequestTimeoutError', 'WorkflowAlreadyStartedError', 'WorkflowAlreadyClosedError', 'PayloadTooLargeError',
  'UnsupportedMediaTypeError', 'UpdateRejectedError', 'UpdateFailedError', 'QueryFailedError', 'WorkflowNotCompletedError',
  'RequestHeaderFieldsTooLargeError', 'InternalServerError', 'CatalogNotAvailableError', 'EngineUnavailableError',
  'TraceNotFoundError', 'TraceStorageUnavailableError', 'IdempotencyKeyReusedError', 'ForbiddenError', 'RateLimitedError',
  'ScheduleNotFoundError', 'ScheduleAlreadyExistsError', 'PreconditionFailedError', 'ResetNotPossibleError', 'BatchNotFoundError',
  'PayloadNotFoundError', 'PayloadStorageNotConfiguredError', 'PayloadStorageUnavailableError', 'DeploymentNotFoundError',
  'DeploymentVersionNotFoundError', 'DeploymentConflictError', 'WorkflowNotStartedError', 'StreamCapacityError'
] as const

export type ErrorName = typeof ERROR_NAMES[number]

export const ErrorResponseSchema = Type.Object({
  error: Type.Unsafe<ErrorName>({ type: 'string', enum: [...ERROR_NAMES], description: 'Stable error name; the status code\'s description lists the ones it comes with' }),
  message: Type.String(),
  workflowId: Type.Optional(Type.String()),
  runId: Type.Optional(Type.String())
}, {
  $id: 'ErrorResponse',
  additionalProperties: false,
  description: 'Every failure other than a validation error. `workflowId`/`runId` name the execution when one is concerned.'
})

export const ValidationErrorSchema = Type.Object({
  error: Type.Literal('ValidationError'),
  message: Type.Literal('Invalid Payload'),
  issues: Type.Array(ref(IssueSchema))
}, { $id: 'ValidationError', additionalProperties: false, description: 'A request the schema or the catalog refuses: one issue per problem' })

/**
 * Unpadded base64url in its one canonical spelling (the unused low bits of the last character are
 * zero): exactly the strings `Buffer.toString('base64url')` produces, so every value a generator
 * draws from this pattern decodes, and decodes back to itself.
 */
export const BASE64URL_PATTERN = '^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}[AEIMQUYcgkosw048]|[A-Za-z0-9_-][AQgw])?$'

/** A stream cursor: 24 bytes as base64url, 32 characters; every such string is one (plugins/app/history/cursor.ts). */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]{32}$'

/**
 * What a value may not hold when it enters a visibility query of the engine (a catalog id, a
 * workflow name, a schedule id, a deployment name or build id): a control character. The engine's
 * SQL store fails the whole query on a NUL (an UNAVAILABLE, as if the engine were away); no name
 * the API or a worker issues holds one. A lone surrogate, which the engine refuses as invalid
 * UTF-8, cannot come in a URL, and the JSON body parser refuses it in a body
 * (plugins/http/json-body/index.ts): it is not in the pattern, whose surrogate range generators
 * built on Rust's regex cannot read (the fuzzer dropped every such pattern). Ranges of a negated
 * character class, for patterns with rules of their own (schemas/deployment-version.ts).
 */
export const NOT_IN_QUERY_TEXT = '\\x00-\\x1f\\x7f-\\x9f'

/**
 * The rule of a pattern in words, for the 400 that refuses a value (lib/json-schema.ts): a client
 * reads "must hold no control character", not the regular expression.
 */
const PATTERN_RULES = new Map<string, string>()
export function ruled (pattern: string, rule: string): string {
  PATTERN_RULES.set(pattern, rule)
  return pattern
}
export const patternRule = (pattern: string): string | undefined => PATTERN_RULES.get(pattern)

export const QUERY_TEXT_PATTERN = ruled(`^[^${NOT_IN_QUERY_TEXT}]*$`, 'must hold no control character')

/**
 * The one schema of a value that enters a visibility query; a route narrows it with its own
 * `maxLength` and description (`{ ...QueryTextSchema, maxLength: 200 }`). Bounded, so that no
 * value makes a query longer than the engine takes.
 */
export const QueryTextSchema = Type.String({ minLength: 1, maxLength: 1000, pattern: QUERY_TEXT_PATTERN })

/** A whole visibility query (a batch's filter): the same, except tabs and line breaks, whitespace between its clauses. */
export const VISIBILITY_QUERY_PATTERN = '^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*$'

export const WorkflowIdSchema = Type.String({ minLength: 1, maxLength: 1000, description: 'Workflow id', examples: ['expense-42'] })
export const RunIdSchema = Type.String({ format: 'uuid', description: 'Run id (a UUID)', examples: ['0198a9f2-6c1e-7f3a-9d2b-5e8c4a1b7d60'] })
export const NameSchema = Type.String({ minLength: 1, maxLength: 1000 })

export const WorkflowParamsSchema = Type.Object({ id: WorkflowIdSchema }, { $id: 'WorkflowParams' })
export const RunParamsSchema = Type.Object({ id: WorkflowIdSchema, rid: RunIdSchema }, { $id: 'RunParams' })

export type ErrorResponse = Static<typeof ErrorResponseSchema>

/**
 * The OpenAPI description of each error status (the response's, not the schema's): which error
 * names come with it.
 */
export const ERROR_DESCRIPTIONS = {
  400: 'ValidationError: the body, query, path or headers break the schema, or `input`/`payload` break the catalog\'s JSON Schema; one issue per problem',
  401: 'UnauthorizedError: the key or run token is missing, unknown, malformed or expired, or an API key was sent in the ' +
    'query string, even beside a valid header (only run tokens are accepted there, as `runToken`); `WWW-Authenticate` is set',
  403: 'ForbiddenError: the credential is valid but lacks the route\'s scope, or the run\'s catalog or workflow name is outside ' +
    'the key\'s limits, or a run token names another workflow id or run; the message says what is missing',
  404: 'WorkflowNotFoundError: no such workflow, run, workflow name or catalog; SignalNotFoundError, QueryNotFoundError or ' +
    'UpdateNotFoundError: the workflow declares no handler of that name (or, for GET …/updates/{updateId}, the latest run has no accepted update of that id); BatchNotFoundError: no such batch operation; TraceNotFoundError: tracing is switched off, or the run\'s ' +
    'trace is in no destination and the engine no longer keeps its history; ScheduleNotFoundError: no schedule has this id; PayloadNotFoundError: ' +
    '`inputRef` names no upload, or one older than SERVICE_PAYLOAD_UPLOAD_TTL_S, or a value the engine holds by reference is no longer in the ' +
    'bucket; PayloadStorageNotConfiguredError: large payloads are off (no object store is configured: docs/large-payloads.md); ' +
    'DeploymentNotFoundError: the engine knows no worker deployment of this name; DeploymentVersionNotFoundError: the deployment has no version of this build id',
  408: 'WorkflowExecutionTimedOutError: `timeout` elapsed before the run closed; the workflow keeps running',
  409: 'WorkflowAlreadyStartedError: an open run holds this workflowId (the body names its runId); WorkflowAlreadyClosedError: the run is closed; ' +
    'WorkflowNotStartedError: a query reached a run no worker has started yet (a startDelay or a retry\'s backoff holds it); ' +
    'ScheduleAlreadyExistsError: a schedule has this id; ResetNotPossibleError: the run has no usable reset point (the message says why), or another run of the workflow id is open; ' +
    'DeploymentConflictError: the engine refused the change of a worker deployment (the message says why: the version is already current, has no pollers, ' +
    'another change came first), a rollback has no version to go back to, or a run would be moved to a version none of whose workers polls its catalog',
  412: 'PreconditionFailedError: `If-Match` does not hold: not the current ETag of a schedule (read it again and retry with the new one), ' +
    'or another run than the one the request would act on (the latest run of the workflow id, or the pinned run); nothing was changed',
  413: 'PayloadTooLargeError: the body is larger than SERVICE_BODY_LIMIT_BYTES (or the upload `inputRef` names is larger than SERVICE_PAYLOAD_UPLOAD_MAX_BYTES)',
  415: 'UnsupportedMediaTypeError: the body is not `application/json`',
  422: 'UpdateRejectedError: the update\'s validator refused the payload; UpdateFailedError / QueryFailedError: the handler threw; ' +
    'IdempotencyKeyReusedError: the Idempotency-Key was used before with another body (workflow name, input, catalog or webhook URL)',
  424: 'WorkflowNotCompletedError: the run is still open; read it again once it has closed',
  429: 'RateLimitedError: the key spent its request budget for the window (SERVICE_RATE_LIMIT_MAX per SERVICE_RATE_LIMIT_WINDOW_MS, ' +
    'or the key\'s own `rateLimit`), or (a stream) the key holds SERVICE_STREAMS_MAX_PER_KEY open streams on this replica; `Retry-After` and the `RateLimit-Limit`/`RateLimit-Remaining`/`RateLimit-Reset` headers say when it refills',
  431: 'RequestHeaderFieldsTooLargeError: the request line and headers are larger than the limit',
  500: 'InternalServerError: an unexpected failure; the message names the request id, the server log has the details',
  502: 'EngineUnavailableError: the engine failed this request although it answers others (a store error of its own); ' +
    'the API stays available, and a retry may succeed',
  503: 'EngineUnavailableError: Temporal is unreachable; CatalogNotAvailableError: the catalog is published but no worker polls it (for a start: none that would take a new run, as when no version of its workers\' deployment is current), ' +
    'or the default catalog is not published yet; TraceStorageUnavailableError: the trace bucket did not answer; ' +
    'PayloadStorageUnavailableError: the payload bucket did not answer; StreamCapacityError: a stream past the replica\'s cap of open streams ' +
    '(SERVICE_STREAMS_MAX) or of runs-feed filter sets (SERVICE_RUNS_FEED_MAX_FEEDS). `Retry-After` says ' +
    'when to try again'
} as const

/** A `$ref` response with its own description (@fastify/swagger takes a response's description from the `$ref`'s sibling). */
export function response<T extends TSchema> (schema: T, description: string, headers?: Record<string, unknown>) {
  // `headers`: the response headers the OpenAPI document declares (name → JSON Schema with a description).
  return Type.Unsafe<Static<T>>(Type.Ref(String(schema.$id), headers === undefined ? { description } : { description, headers }))
}

type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS
type ErrorResponseOf<K> = ReturnType<typeof response<K extends 400 ? typeof ValidationErrorSchema : typeof ErrorResponseSchema>>

/** Standard error responses (a 400 is a ValidationError, any other an ErrorResponse); spread into a route's `response` next to its success schema. */
export const errors = Object.fromEntries(Object.entries(ERROR_DESCRIPTIONS).map(([status, description]) =>
  [status, response(status === '400' ? ValidationErrorSchema : ErrorResponseSchema, description)])) as { [K in ErrorStatus]: ErrorResponseOf<K> }

/** Picks the error responses a route can send, e.g. `errorsFor(400, 404, 503)`. */
export function errorsFor<K extends keyof typeof errors> (...codes: K[]): Pick<typeof errors, K> {
  return Object.fromEntries(codes.map((c) => [c, errors[c]])) as Pick<typeof errors, K>
}
