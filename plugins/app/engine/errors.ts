/**
 * Maps errors of the Temporal client to API errors, so no engine error name or gRPC detail
 * reaches a client. Routes add context (workflowId, runId) where they know it.
 */
import { status as GrpcStatus } from '@grpc/grpc-js'
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ServiceError, WorkflowNotFoundError, isGrpcServiceError } from '@temporalio/client'
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common'
import { ApiError, engineUnavailable, notFound, validationError } from '../../../lib/api-error.js'
import { EngineBreakerOpenError } from './breaker.js'

interface Context { workflowId?: string, runId?: string }

/** The gRPC status and details of an engine failure, also when the SDK wraps it (a start's WorkflowStartError-like ServiceError). */
export function grpcFailure (err: unknown): { code: number, details: string } | undefined {
  if (isGrpcServiceError(err)) return { code: err.code, details: err.details }
  if (err instanceof ServiceError && err.cause) return grpcFailure(err.cause)
  return undefined
}

export const grpcCode = (err: unknown) => grpcFailure(err)?.code

/**
 * The engine's visibility store failing one request's query: it answers UNAVAILABLE with its SQL
 * error (SQLite "SQL logic error: unrecognized token" for a NUL, MySQL and PostgreSQL "syntax
 * error", PostgreSQL "invalid byte sequence"), though it is there and answers every other call.
 * Not worth a retry: the same query fails the same way.
 */
export function isQueryError (failure: { code: number, details: string }): boolean {
  return failure.code === GrpcStatus.UNAVAILABLE && /SQL logic error|syntax|unrecognized token|invalid byte sequence|invalid query/i.test(failure.details)
}

/** Returns an ApiError for a known engine failure, or undefined for a real internal error. */
export function fromEngineError (err: unknown, ctx: Context = {}): ApiError | undefined {
  if (err instanceof ApiError) return err
  if (err instanceof EngineBreakerOpenError) return engineUnavailable()
  if (err instanceof WorkflowNotFoundError) {
    return notFound(ctx.runId ? `Workflow ${ctx.workflowId} run ${ctx.runId} not found` : `Workflow ${ctx.workflowId ?? err.workflowId} not found`, ctx)
  }
  if (err instanceof ScheduleNotFoundError) return new ApiError(404, 'ScheduleNotFoundError', `Schedule ${err.scheduleId} not found`)
  if (err instanceof ScheduleAlreadyRunning) return new ApiError(409, 'ScheduleAlreadyExistsError', `Schedule ${err.scheduleId} already exists`)
  if (err instanceof WorkflowExecutionAlreadyStartedError) {
    return new ApiError(409, 'WorkflowAlreadyStartedError', `Workflow ${err.workflowId} is already running`, { workflowId: err.workflowId, ...ctx })
  }
  const failure = grpcFailure(err)
  switch (failure?.code) {
    case GrpcStatus.UNAVAILABLE:
      // The breaker releases every call with EngineBreakerOpenError (above) when the engine is
      // away, so an UNAVAILABLE that gets here failed this request alone while the engine answers
      // its probe: not the 503 that tells every client to wait.
      if (isQueryError(failure)) {
        return validationError([{ path: '', in: 'querystring', message: 'holds a value the engine\'s visibility store cannot search for' }])
      }
      return new ApiError(502, 'EngineUnavailableError', 'The workflow engine failed this request (it answers others); try again')
    case GrpcStatus.DEADLINE_EXCEEDED:
      return engineUnavailable()
    case GrpcStatus.NOT_FOUND:
      return notFound(ctx.workflowId ? `Workflow ${ctx.workflowId} not found` : 'Not found', ctx)
  }
  return undefined
}
