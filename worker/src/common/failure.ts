/**
 * Errors thrown by user code (steps in Node, workflow code in the sandbox) as Temporal failures.
 * Temporal would name the failure after the constructor; the error's `name` is what users set and
 * API clients see, and FatalError (or its subclasses) must not be retried.
 * Uses only @temporalio/common, which is safe in the workflow sandbox.
 */
import { ApplicationFailure, TemporalFailure } from '@temporalio/common'
import { isNonRetryable } from './errors.js'

/** A Temporal failure for `err`; failures Temporal already made pass through unchanged. */
export function failureFrom (err: unknown): unknown {
  if (err instanceof TemporalFailure) return err
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

/** A value that does not match its schema: never retried (the same value fails again). */
export function validationFailure (message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: 'ValidationError', nonRetryable: true })
}
