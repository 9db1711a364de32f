/**
 * The engine's clock as this replica can tell it, for the runs feed's positions (position.ts).
 * A change's position is its engine time (a run's start or close time); the feed hands out a window
 * only once the engine has made it visible, so where the feed stands (its frontier, the `id:` of a
 * quiet stream's heartbeat) must be an engine time too, never this replica's own clock: a replica
 * whose clock runs ahead would otherwise read windows before the engine has filled them, and send
 * ids past changes it never saw; a client resuming from such an id on another replica would miss
 * them. The engine has no call that tells its time, but every start or close time it lists is a
 * time its clock has passed: `now()` is this replica's clock moved by the most the engine is known
 * to be ahead of it (or the least it is known to be behind), a lower bound of the engine's clock
 * that advances between the facts as time passes here. Durations are measured on this replica's
 * clock, so only its rate matters, never how it agrees with the engine's or another replica's
 * (it keeps the largest lead it has seen: a step back of this clock, an NTP correction, by more
 * than the feed's delay would let a window be read that much early).
 *
 * The first fact is the newest start or close time in the namespace (`seed`); every change the
 * feed lists after that is one more. Until it knows one (an engine that does not answer, a
 * namespace without a run), it trusts its own clock.
 */

/** The newest engine times the engine lists now (epoch ms), or none. */
export type NewestTimes = (signal?: AbortSignal) => Promise<number[]>

export class EngineClock {
  /** The least by which the engine's clock is ahead of this replica's (negative: behind); undefined until a fact. */
  #ahead: number | undefined
  #seeding: Promise<void> | undefined

  constructor (
    private readonly newest: NewestTimes,
    /** This replica's clock (a test gives one that is off; production passes none). */
    readonly local: () => number = Date.now
  ) {}

  get known (): boolean { return this.#ahead !== undefined }

  /** An engine time just listed: the engine's clock has passed it. */
  saw (engineMs: number): void {
    const ahead = engineMs - this.local()
    if (this.#ahead === undefined || ahead > this.#ahead) this.#ahead = ahead
  }

  /** The engine's time now, at least (this replica's own until a fact is known). */
  now (): number {
    return this.local() + (this.#ahead ?? 0)
  }

  /**
   * Learns a first fact, once (concurrent callers share the call); a failure leaves the clock as
   * it was, and the next call tries again. Never rejects: a feed works on this replica's clock
   * meanwhile.
   */
  async seed (signal?: AbortSignal): Promise<void> {
    if (this.known) return
    this.#seeding ??= this.newest(signal)
      .then((times) => { for (const t of times) this.saw(t) }, () => {})
      .finally(() => { this.#seeding = undefined })
    await this.#seeding
  }
}
