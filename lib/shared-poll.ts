/**
 * One upstream poll per key, shared by its subscribers (the history hubs, the runs feeds): the
 * first starts it, the last to leave stops it, and the next starts a fresh one.
 */

export abstract class SharedPoll<S> {
  readonly subscribers = new Set<S>()
  readonly #abort = new AbortController()

  constructor (private readonly onStop: (poll: SharedPoll<S>) => void) {}

  get signal (): AbortSignal { return this.#abort.signal }
  get closed (): boolean { return this.#abort.signal.aborted }

  leave (subscriber: S): void {
    this.subscribers.delete(subscriber)
    if (this.subscribers.size === 0) this.close()
  }

  /** Stops the poll and leaves the registry; subscribers still holding it can read what it has. */
  close (): void {
    if (this.closed) return
    this.#abort.abort()
    this.onStop(this)
  }
}

export class SharedPolls<P> {
  readonly #polls = new Map<string, P>()

  constructor (private readonly onStop?: () => void) {}

  get size (): number { return this.#polls.size }

  values (): P[] { return [...this.#polls.values()] }

  has (key: string): boolean { return this.#polls.has(key) }

  of (key: string, start: (onStop: (poll: unknown) => void) => P): P {
    let poll = this.#polls.get(key)
    if (!poll) {
      poll = start((ended) => {
        if (this.#polls.get(key) === ended) this.#polls.delete(key)
        this.onStop?.()
      })
      this.#polls.set(key, poll)
    }
    return poll
  }
}
