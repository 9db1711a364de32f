/**
 * Error types shared by step code (Node) and workflow code (sandbox). Pure: no Temporal, no Node.
 */

/**
 * An error that must not be retried. Throw it (or a subclass) from a step or a workflow: the
 * failure keeps the error's `name` as its type, so `class ExplosionError extends FatalError {}`
 * reaches API clients as `name: "ExplosionError"`.
 */
export class FatalError extends Error {
  /** Duck-typed marker: checked instead of `instanceof`, so a second copy of this SDK still counts. */
  readonly nonRetryable = true

  constructor (message?: string, options?: ErrorOptions) {
    super(message, options)
    this.name = new.target.name
  }
}

/** Thrown for a value that does not match its schema; never retried (the same input fails again). */
export class ValidationError extends FatalError {}

export function isNonRetryable (err: unknown): boolean {
  return err instanceof Error && (err as { nonRetryable?: unknown }).nonRetryable === true
}
