/**
 * Error classes named after the API's `error` names (docs/errors.md). Every error the client
 * throws for an HTTP answer is a FlowportError carrying `status`, `error` and the parsed `body`;
 * a request that got no HTTP answer is a FlowportNetworkError (status 0). An aborted request
 * rethrows the AbortSignal's reason unchanged.
 */
import type { ErrorName, Issue } from './types.js'

export class FlowportError extends Error {
  /** HTTP status; 0 when no HTTP answer arrived (FlowportNetworkError). */
  readonly status: number
  /** The API's `error` name (e.g. `WorkflowNotFoundError`). */
  readonly error: string
  /** The parsed response body (the API's ErrorResponse), or the text of an unexpected answer. */
  readonly body: unknown
  readonly workflowId?: string
  readonly runId?: string
  /** Seconds from a `Retry-After` header (503 answers), when present. */
  readonly retryAfter?: number

  constructor (message: string, init: { status: number, error: string, body?: unknown, workflowId?: string, runId?: string, retryAfter?: number, cause?: unknown }) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause })
    this.name = 'FlowportError'
    this.status = init.status
    this.error = init.error
    this.body = init.body
    if (init.workflowId !== undefined) this.workflowId = init.workflowId
    if (init.runId !== undefined) this.runId = init.runId
    if (init.retryAfter !== undefined) this.retryAfter = init.retryAfter
  }
}

/** The request got no HTTP answer (connection refused, DNS, reset before the response). */
export class FlowportNetworkError extends FlowportError {
  constructor (message: string, cause?: unknown) {
    super(message, { status: 0, error: 'NetworkError', cause })
    this.name = 'FlowportNetworkError'
  }
}

type Init = ConstructorParameters<typeof FlowportError>[1]

function named<N extends ErrorName> (name: N) {
  const Class = class extends FlowportError {
    static readonly errorName: N = name
    constructor (message: string, init: Init) {
      super(message, init)
      this.name = name
    }
  }
  Object.defineProperty(Class, 'name', { value: name })
  return Class
}

/** 400: the body, parameters or input failed validation; `issues` lists each problem. */
export class ValidationError extends FlowportError {
  static readonly errorName = 'ValidationError' as const
  /** One issue per problem: a JSON-pointer `path` and a `message`. */
  readonly issues: Issue[]
  constructor (message: string, init: Init) {
    super(message, init)
    this.name = 'ValidationError'
    const issues = (init.body as { issues?: unknown } | undefined)?.issues
    this.issues = Array.isArray(issues) ? issues as Issue[] : []
  }
}

export class UnauthorizedError extends named('UnauthorizedError') {}
export class WorkflowNotFoundError extends named('WorkflowNotFoundError') {}
export class RouteNotFoundError extends named('RouteNotFoundError') {}
export class SignalNotFoundError extends named('SignalNotFoundError') {}
export class QueryNotFoundError extends named('QueryNotFoundError') {}
export class UpdateNotFoundError extends named('UpdateNotFoundError') {}
export class MethodNotAllowedError extends named('MethodNotAllowedError') {}
export class NotAcceptableError extends named('NotAcceptableError') {}
/** 408 from `/workflow/run`: the wait timed out; `workflowId` names the run, which goes on. */
export class WorkflowExecutionTimedOutError extends named('WorkflowExecutionTimedOutError') {}
export class RequestTimeoutError extends named('RequestTimeoutError') {}
export class WorkflowAlreadyStartedError extends named('WorkflowAlreadyStartedError') {}
export class WorkflowAlreadyClosedError extends named('WorkflowAlreadyClosedError') {}
/** 409 from a query: no worker has started the run yet (a startDelay or a retry's backoff holds it). */
export class WorkflowNotStartedError extends named('WorkflowNotStartedError') {}
export class PayloadTooLargeError extends named('PayloadTooLargeError') {}
export class UnsupportedMediaTypeError extends named('UnsupportedMediaTypeError') {}
export class UpdateRejectedError extends named('UpdateRejectedError') {}
export class UpdateFailedError extends named('UpdateFailedError') {}
export class QueryFailedError extends named('QueryFailedError') {}
export class WorkflowNotCompletedError extends named('WorkflowNotCompletedError') {}
export class RequestHeaderFieldsTooLargeError extends named('RequestHeaderFieldsTooLargeError') {}
export class InternalServerError extends named('InternalServerError') {}
export class CatalogNotAvailableError extends named('CatalogNotAvailableError') {}
export class EngineUnavailableError extends named('EngineUnavailableError') {}
export class TraceNotFoundError extends named('TraceNotFoundError') {}
export class TraceStorageUnavailableError extends named('TraceStorageUnavailableError') {}
/** 422: the Idempotency-Key was sent before with another request body. */
export class IdempotencyKeyReusedError extends named('IdempotencyKeyReusedError') {}
/** 403: the key lacks the route's scope, or the run is outside its catalogs/workflow patterns. */
export class ForbiddenError extends named('ForbiddenError') {}
/** 429: the key's request budget is spent; `retryAfter` says when it refills. */
export class RateLimitedError extends named('RateLimitedError') {}
/** 404: no schedule has this id. */
export class ScheduleNotFoundError extends named('ScheduleNotFoundError') {}
/** 409: a schedule has this id already. */
export class ScheduleAlreadyExistsError extends named('ScheduleAlreadyExistsError') {}
/** 412: `If-Match` does not hold (a stale schedule or deployment ETag, or another run than the call would act on); nothing was changed. */
export class PreconditionFailedError extends named('PreconditionFailedError') {}
/** 409: the run has no usable reset point (the message says why), or another run of its id is open. */
export class ResetNotPossibleError extends named('ResetNotPossibleError') {}
/** 404: no batch operation with that id. */
export class BatchNotFoundError extends named('BatchNotFoundError') {}
/** 404: `inputRef` names no upload, or one older than SERVICE_PAYLOAD_UPLOAD_TTL_S (or a stored large value is gone). */
export class PayloadNotFoundError extends named('PayloadNotFoundError') {}
/** 404: large payloads are off on this API (no object store is configured). */
export class PayloadStorageNotConfiguredError extends named('PayloadStorageNotConfiguredError') {}
/** 503: the payload bucket did not answer; `retryAfter` says when to try again. */
export class PayloadStorageUnavailableError extends named('PayloadStorageUnavailableError') {}
/** 404: the engine knows no worker deployment of that name. */
export class DeploymentNotFoundError extends named('DeploymentNotFoundError') {}
/** 404: the worker deployment has no version of that build id. */
export class DeploymentVersionNotFoundError extends named('DeploymentVersionNotFoundError') {}
/** 409: the engine refused a change of a worker deployment (the message says why), or a rollback has no version to go back to. */
export class DeploymentConflictError extends named('DeploymentConflictError') {}

/** 503: the replica holds its most open streams, or polls its most runs-feed filter sets; `retryAfter` says when to try again (streams wait it out by themselves). */
export class StreamCapacityError extends named('StreamCapacityError') {}

export { WorkflowExecutionTimedOutError as WorkflowTimeoutError }

/** Every error class of an API error name, found by its name (errorFromBody). */
const CLASSES = [
  ValidationError, UnauthorizedError, WorkflowNotFoundError, RouteNotFoundError, SignalNotFoundError, QueryNotFoundError,
  UpdateNotFoundError, MethodNotAllowedError, NotAcceptableError, WorkflowExecutionTimedOutError, RequestTimeoutError,
  WorkflowAlreadyStartedError, WorkflowAlreadyClosedError, PayloadTooLargeError, UnsupportedMediaTypeError, UpdateRejectedError,
  UpdateFailedError, QueryFailedError, WorkflowNotCompletedError, RequestHeaderFieldsTooLargeError, InternalServerError,
  CatalogNotAvailableError, EngineUnavailableError, TraceNotFoundError, TraceStorageUnavailableError, IdempotencyKeyReusedError,
  ForbiddenError, RateLimitedError, ScheduleNotFoundError, ScheduleAlreadyExistsError, PreconditionFailedError, ResetNotPossibleError,
  BatchNotFoundError, PayloadNotFoundError, PayloadStorageNotConfiguredError, PayloadStorageUnavailableError, DeploymentNotFoundError,
  DeploymentVersionNotFoundError, DeploymentConflictError, WorkflowNotStartedError, StreamCapacityError
]
const byName = Object.fromEntries(CLASSES.map((Class) => [Class.errorName, Class])) as Record<typeof CLASSES[number]['errorName'], typeof CLASSES[number]>

/** One class per API error name; a new name in the OpenAPI document without its class in CLASSES is a compile error here. */
export const ERROR_CLASSES: { readonly [N in ErrorName]: new (message: string, init: Init) => FlowportError } = byName

export function isFlowportError (e: unknown): e is FlowportError {
  return e instanceof FlowportError
}

/** `Retry-After` in seconds: delay-seconds or an HTTP date (RFC 9110 allows both); undefined when absent or unreadable. */
function retryAfterSeconds (value: string | null): number | undefined {
  if (value === null) return undefined
  if (/^\s*\d+\s*$/.test(value)) return Number(value)
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000))
}

/** The error an API error body stands for: the class of its `error` name, else a plain FlowportError. */
export function errorFromBody (status: number, body: unknown, fallbackMessage: string, retryAfter?: number): FlowportError {
  const object = typeof body === 'object' && body !== null ? body as Record<string, unknown> : {}
  const name = typeof object.error === 'string' ? object.error : undefined
  const message = typeof object.message === 'string' ? object.message : fallbackMessage
  const init: Init = {
    status,
    error: name ?? `HTTP${status}`,
    body,
    ...(typeof object.workflowId === 'string' ? { workflowId: object.workflowId } : {}),
    ...(typeof object.runId === 'string' ? { runId: object.runId } : {}),
    ...(retryAfter === undefined ? {} : { retryAfter })
  }
  const Class = name !== undefined && Object.hasOwn(ERROR_CLASSES, name) ? ERROR_CLASSES[name as ErrorName] : FlowportError
  return new Class(message, init)
}

/** The error for a non-2xx answer: the class of its `error` name, else a plain FlowportError. */
export function errorFromResponse (response: Response, body: unknown): FlowportError {
  const fallback = `HTTP ${response.status} ${response.statusText}`.trim()
  return errorFromBody(response.status, body, fallback, retryAfterSeconds(response.headers.get('retry-after')))
}
