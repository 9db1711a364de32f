/** The one error type thrown for expected failures; anything else becomes a 500 without internals. */
import type { ErrorName } from '../schemas/common.js'

export type { ErrorName }

export interface Issue { path: string, in: string, message: string }

export interface ErrorBody { error: ErrorName, message: string, workflowId?: string, runId?: string, issues?: Issue[] }

export interface ApiErrorExtras {
  workflowId?: string
  runId?: string
  issues?: Issue[]
  headers?: Record<string, string>
}

export class ApiError extends Error {
  constructor (readonly statusCode: number, readonly error: ErrorName, message: string, readonly extras: ApiErrorExtras = {}) {
    super(message)
    this.name = error
  }

  toBody (): ErrorBody {
    const { workflowId, runId, issues } = this.extras
    return { error: this.error, message: this.message, workflowId, runId, issues }
  }
}

export const RETRY_AFTER_SECONDS = '3'

/** A stream refused at a cap: streams end over minutes, not seconds. */
export const STREAM_RETRY_AFTER_SECONDS = '10'

export const validationError = (issues: Issue[]) =>
  new ApiError(400, 'ValidationError', 'Invalid Payload', { issues })

export const notFound = (message: string, extras: ApiErrorExtras = {}) =>
  new ApiError(404, 'WorkflowNotFoundError', message, extras)

/** For `.catch`: a 404 becomes `value`; any other failure is thrown on. */
export const ifNotFound = <T>(value: T) => (err: unknown): T => {
  if (err instanceof ApiError && err.statusCode === 404) return value
  throw err
}

export const engineUnavailable = (message = 'The workflow engine is unavailable') =>
  new ApiError(503, 'EngineUnavailableError', message, { headers: { 'retry-after': RETRY_AFTER_SECONDS } })
