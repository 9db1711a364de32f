/** No engine error name or gRPC detail reaches a client. */
import { status as GrpcStatus } from '@grpc/grpc-js'
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ServiceError, WorkflowNotFoundError, isGrpcServiceError } from '@temporalio/client'
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common'
import { ApiError, engineUnavailable, notFound, validationError } from '../../../lib/api-error.js'
import { EngineBreakerOpenError } from './breaker.js'

interface Context { workflowId?: string, runId?: string }

/** Also when the SDK wraps it in a ServiceError (a start). */
export function grpcFailure (err: unknown): { code: number, details: string } | undefined {
  if (isGrpcServiceError(err)) return { code: err.code, details: err.details }
  if (err instanceof ServiceError && err.cause) return grpcFailure(err.cause)
  return undefined
}

export const grpcCode = (err: unknown) => grpcFailure(err)?.code

/**
 * The visibility store failing one query (SQLite "unrecognized token" for a NUL, MySQL/PostgreSQL
 * "syntax error", "invalid byte sequence"): UNAVAILABLE though the engine is up; a retry fails alike.
 */
export function isQueryError (failure: { code: number, details: string }): boolean {
  return failure.code === GrpcStatus.UNAVAILABLE && /SQL logic error|syntax|unrecognized token|invalid byte sequence|invalid query/i.test(failure.details)
}

/** Undefined for a real internal error. */
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
      // The breaker answers for an engine away (above): this UNAVAILABLE failed this request alone.
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
