/**
 * Turning errors thrown by user workflow code into Temporal failures. Temporal treats a plain
 * `Error` thrown by workflow code as a bug and retries the workflow task forever, which leaves an
 * API caller with a run that never ends; Flowport fails the run instead, keeping the error's name.
 */
import { ApplicationFailure, ContinueAsNew, TemporalFailure } from '@temporalio/workflow'
import { isNonRetryable } from '../shared/errors.js'

export function toFailure (err: unknown): unknown {
  if (err instanceof TemporalFailure || err instanceof ContinueAsNew) return err
  if (err instanceof Error) {
    const failure = ApplicationFailure.create({
      message: err.message,
      type: err.name,
      nonRetryable: isNonRetryable(err),
      cause: err.cause instanceof Error ? err.cause : undefined
    })
    failure.stack = err.stack ?? failure.stack
    return failure
  }
  return ApplicationFailure.create({ message: String(err), type: 'Error' })
}

export function validationFailure (message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: 'ValidationError', nonRetryable: true })
}
