/**
 * Maps errors of the Temporal client to API errors, so no engine error name or gRPC detail
 * reaches a client. Routes add context (workflowId, runId) where they know it.
 */
import { status as GrpcStatus } from '@grpc/grpc-js'
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ServiceError, WorkflowNotFoundError, isGrpcServiceError } from '@temporalio/client'
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common'
import { ApiError, engineUnavailable, notFound } from '../../../lib/api-error.js'
import { EngineBreakerOpenError } from './breaker.js'

interface Context { workflowId?: string, runId?: string }

/** The gRPC status and details of an engine failure, also when the SDK wraps it (a start's WorkflowStartError-like ServiceError). */
export function grpcFailure (err: unknown): { code: number, details: string } | undefined {
  if (isGrpcServiceError(err)) return { code: err.code, details: err.details }
  if (err instanceof ServiceError && err.cause) return grpcFailure(err.cause)
  return undefined
}

export const grpcCode = (err: unknown) => grpcFailure(err)?.code

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
  switch (grpcCode(err)) {
    case GrpcStatus.UNAVAILABLE:
    case GrpcStatus.DEADLINE_EXCEEDED:
      return engineUnavailable()
    case GrpcStatus.NOT_FOUND:
      return notFound(ctx.workflowId ? `Workflow ${ctx.workflowId} not found` : 'Not found', ctx)
  }
  return undefined
}
