/**
 * A lower bound of the engine's clock, for the feed's positions: the frontier and heartbeat ids
 * must be engine times, never this replica's clock, or a replica running ahead would read windows
 * before the engine filled them and hand out ids past changes it never saw. The engine has no time
 * call, but every start or close time it lists has passed: `now()` is this clock moved by the
 * largest lead seen (kept across an NTP step back). Only this clock's rate matters. Until a first
 * fact (`seed`: the namespace's newest start or close), it trusts its own clock.
 */

export type NewestTimes = (signal?: AbortSignal) => Promise<number[]>

export class EngineClock {
  /** Negative: behind; undefined until a fact. */
  #ahead: number | undefined
  #seeding: Promise<void> | undefined

  constructor (
    private readonly newest: NewestTimes,
    /** A test gives one that is off. */
    readonly local: () => number = Date.now
  ) {}

  get known (): boolean { return this.#ahead !== undefined }

  saw (engineMs: number): void {
    const ahead = engineMs - this.local()
    if (this.#ahead === undefined || ahead > this.#ahead) this.#ahead = ahead
  }

  now (): number {
    return this.local() + (this.#ahead ?? 0)
  }

  /** Once; concurrent callers share the call. Never rejects: a failure leaves the clock as it was. */
  async seed (signal?: AbortSignal): Promise<void> {
    if (this.known) return
    this.#seeding ??= this.newest(signal)
      .then((times) => { for (const t of times) this.saw(t) }, () => {})
      .finally(() => { this.#seeding = undefined })
    await this.#seeding
  }
}
