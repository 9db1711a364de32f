/**
 * One upstream poll per key, shared by every subscriber of that key: the history hubs (one
 * long-poll per run, plugins/app/history/hubs.ts) and the runs feeds (one visibility poll per set of
 * filters, plugins/app/runs-feed/feed.ts). The first subscriber of a key starts its poll, the last
 * to leave stops it, and a stopped poll leaves the registry: the next subscriber starts a fresh one.
 */

/** One key's poll and its subscribers; the subclass polls until `signal` aborts. */
export abstract class SharedPoll<S> {
  readonly subscribers = new Set<S>()
  readonly #abort = new AbortController()

  constructor (private readonly onStop: (poll: SharedPoll<S>) => void) {}

  /** Aborts the upstream call in flight when the poll stops. */
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

/** The live polls, one per key. */
export class SharedPolls<P> {
  readonly #polls = new Map<string, P>()

  /** `onStop`: a poll stopped (and left the registry). */
  constructor (private readonly onStop?: () => void) {}

  get size (): number { return this.#polls.size }

  values (): P[] { return [...this.#polls.values()] }

  has (key: string): boolean { return this.#polls.has(key) }

  /** The live poll of `key`, started by `start` when there is none. */
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
