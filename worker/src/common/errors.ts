/**
 * Error types shared by step code (Node) and workflow code (sandbox). Pure: no Temporal, no Node.
 * FatalError lives in core, whose credentials errors (core/src/credentials/) extend it too.
 */
import { FatalError } from '@flowport/core/fatal-error'

export { FatalError }

/** Thrown for a value that does not match its schema; never retried (the same input fails again). */
export class ValidationError extends FatalError {}

export function isNonRetryable (err: unknown): boolean {
  return err instanceof Error && (err as { nonRetryable?: unknown }).nonRetryable === true
}
