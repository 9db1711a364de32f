/**
 * An error that must not be retried. Throw it (or a subclass) from a step or a workflow: the
 * failure keeps the error's `name` as its type, so `class ExplosionError extends FatalError {}`
 * reaches API clients as `name: "ExplosionError"`. The worker SDK exports it; core's credentials
 * errors extend it. Pure: the workflow sandbox imports it.
 */
export class FatalError extends Error {
  /** Duck-typed marker: checked instead of `instanceof`, so a second copy of this SDK still counts. */
  readonly nonRetryable = true

  constructor (message?: string, options?: ErrorOptions) {
    super(message, options)
    this.name = new.target.name
  }
}
