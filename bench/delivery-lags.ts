/**
 * The SSE benchmark's lag figures, taken through the history hubs' observer seam
 * (plugins/app/history/hubs.ts), so the API itself keeps no measuring state: per delivered event, the
 * engine's eventTime → API read lag, and per delivered frame the API read → frame handed to the
 * socket lag (ms). Off until `track` is called.
 */
import type { EventChunk } from '../plugins/app/history/event-chunk.js'
import type { RawEvent } from '../plugins/app/history/events.js'
import type { HubObserver } from '../plugins/app/history/hubs.js'
import type { EnginePage } from '../plugins/app/history/reader.js'

interface ReadTime { monotonic: number, wall: number }

export class DeliveryLags implements HubObserver {
  deliveryLags: Float64Array | undefined
  deliveries = 0
  readLags: Float64Array | undefined
  reads = 0
  /** When the API got each event from the engine: batches hold the page's own event objects. */
  readonly #readAt = new WeakMap<RawEvent, ReadTime>()
  readonly #readRecorded = new WeakSet<EventChunk>()

  /** Starts (or restarts) keeping the last `capacity` lags of each kind. */
  track (capacity: number): void {
    this.deliveryLags = new Float64Array(capacity)
    this.readLags = new Float64Array(capacity)
    this.deliveries = this.reads = 0
  }

  onPage = (page: EnginePage): void => {
    if (!this.deliveryLags) return
    const at = { monotonic: performance.now(), wall: Date.now() }
    for (const event of page.events) this.#readAt.set(event, at)
  }

  onDelivery = (batch: EventChunk): void => {
    if (!this.deliveryLags || !this.readLags) return
    const read = this.#readAt.get(batch.events[0])
    if (!read) return
    this.deliveryLags[this.deliveries++ % this.deliveryLags.length] = performance.now() - read.monotonic
    // The read lag is the same for every client of a batch: once per batch keeps the percentiles.
    if (this.#readRecorded.has(batch)) return
    this.#readRecorded.add(batch)
    for (const event of batch.events) {
      const time = event.eventTime
      const committed = Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6)
      this.readLags[this.reads++ % this.readLags.length] = read.wall - committed
    }
  }

  taken (): { delivery: number[], read: number[] } {
    const taken = (ring: Float64Array | undefined, n: number) => Array.from(ring?.subarray(0, Math.min(n, ring.length)) ?? [])
    return { delivery: taken(this.deliveryLags, this.deliveries), read: taken(this.readLags, this.reads) }
  }
}
