/**
 * The registry of live run hubs (one per run, created by the first stream of a run and dropped
 * when its last stream leaves) and the counters of upstream engine calls.
 */
import type { Batch } from './batch.js'
import { RunHub, type HistoryReader, type HubOptions } from './hub.js'
import type { Subscription } from './subscription.js'

export interface HubMetrics {
  /** Every history call made to the engine (long-polls and replays). */
  upstreamCalls: number
  longPolls: number
  replayCalls: number
  /** Calls open right now. */
  inFlight: number
}

/** The registry of live hubs, one per run, and the counters of upstream calls. */
export class HistoryHubs {
  readonly metrics: HubMetrics = { upstreamCalls: 0, longPolls: 0, replayCalls: 0, inFlight: 0 }
  readonly #hubs = new Map<string, RunHub>()
  readonly read: HistoryReader

  readonly #idleWaiters = new Set<() => void>()
  /**
   * For the benchmark, off unless `trackDeliveries`: per delivered event, the engine's eventTime →
   * API read lag, and per delivered frame the API read → frame handed to the socket lag (ms).
   */
  deliveryLags: Float64Array | undefined
  deliveries = 0
  readLags: Float64Array | undefined
  reads = 0
  readonly #readRecorded = new WeakSet<Batch>()

  constructor (read: HistoryReader, readonly options: HubOptions) {
    this.read = async (request) => {
      this.metrics.upstreamCalls++
      if (request.wait) this.metrics.longPolls++
      else this.metrics.replayCalls++
      this.metrics.inFlight++
      try {
        return await read(request)
      } finally {
        this.metrics.inFlight--
        this.#checkIdle()
      }
    }
  }

  /** Starts (or restarts) keeping the last `capacity` delivery lags. */
  trackDeliveries (capacity: number): void {
    this.deliveryLags = new Float64Array(capacity)
    this.readLags = new Float64Array(capacity)
    this.deliveries = this.reads = 0
  }

  recordDelivery (batch: Batch): void {
    if (!this.deliveryLags || !this.readLags) return
    this.deliveryLags[this.deliveries++ % this.deliveryLags.length] = performance.now() - batch.readAt
    // The read lag is the same for every client of a batch: once per batch keeps the percentiles.
    if (this.#readRecorded.has(batch)) return
    this.#readRecorded.add(batch)
    for (const event of batch.events) {
      const time = event.eventTime
      const committed = Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6)
      this.readLags[this.reads++ % this.readLags.length] = batch.readAtWall - committed
    }
  }

  /** Resolves once no hub is live and no engine call is open (every share released). */
  async whenIdle (): Promise<void> {
    if (this.#isIdle()) return
    await new Promise<void>((resolve) => this.#idleWaiters.add(resolve))
  }

  #isIdle (): boolean { return this.#hubs.size === 0 && this.metrics.inFlight === 0 }

  #checkIdle (): void {
    if (!this.#isIdle()) return
    for (const resolve of this.#idleWaiters) resolve()
    this.#idleWaiters.clear()
  }

  /** Follows a run from after `position` (0 = from its first event). */
  subscribe (workflowId: string, runId: string, position: number): Subscription {
    const key = `${workflowId}\u0000${runId}`
    let hub = this.#hubs.get(key)
    if (!hub) {
      hub = new RunHub(workflowId, runId, this.read, this.options, (ended) => {
        if (this.#hubs.get(key) === ended) this.#hubs.delete(key)
        this.#checkIdle()
      })
      this.#hubs.set(key, hub)
    }
    return hub.subscribe(position)
  }

  /** Live hubs and their subscribers, for tests and the benchmark. */
  get size (): number { return this.#hubs.size }
  get subscribers (): number {
    let n = 0
    for (const hub of this.#hubs.values()) n += hub.subscribers.size
    return n
  }

  closeAll (): void {
    for (const hub of [...this.#hubs.values()]) {
      for (const s of [...hub.subscribers]) s.close()
      hub.close()
    }
  }
}
