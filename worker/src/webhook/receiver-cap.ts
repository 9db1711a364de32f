/**
 * At most `perReceiver` webhook POSTs to one receiver (one origin: scheme, host, port) at once from
 * this worker: a receiver that hangs holds each of its attempts for up to 10 s (activities.ts), and
 * without a cap its deliveries could take every delivery slot (ENGINE_MAX_CONCURRENT_WEBHOOK_DELIVERIES)
 * while the deliveries to healthy receivers queue behind them. A POST past the cap is not sent: the
 * attempt fails at once, freeing its slot, and the delivery workflow tries it again after its next
 * retry interval, like any failed attempt (docs/webhooks.md, "A receiver that hangs").
 */
export class ReceiverCap {
  readonly #inFlight = new Map<string, number>()

  constructor (readonly perReceiver: number) {}

  /** A slot for a POST to `origin`, released by the function it answers; undefined when the receiver holds its most. */
  take (origin: string): (() => void) | undefined {
    const held = this.#inFlight.get(origin) ?? 0
    if (held >= this.perReceiver) return undefined
    this.#inFlight.set(origin, held + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (this.#inFlight.get(origin) ?? 1) - 1
      if (left === 0) this.#inFlight.delete(origin)
      else this.#inFlight.set(origin, left)
    }
  }
}
