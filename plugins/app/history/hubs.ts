/**
 * The registry of live run hubs (one per run, created by the first stream of a run and dropped
 * when its last stream leaves) and the counters of upstream engine calls.
 */
import type { Batch } from './batch.js'
import { SharedPolls } from '../../../lib/shared-poll.js'
import { RunHub, type HubOptions } from './hub.js'
import type { EnginePage, HistoryReader } from './reader.js'
import type { Subscription, SubscriptionSink } from './subscription.js'

/**
 * A seam for the benchmark (bench/sse.ts measures delivery lags with it); production passes none,
 * so the hubs keep no measuring state of their own.
 */
export interface HubObserver {
  /** A page arrived from the engine (its events are the objects later batches hold). */
  onPage?: (page: EnginePage) => void
  /** A batch was handed to one client's socket. */
  onDelivery?: (batch: Batch) => void
}

export interface HubMetrics {
  /** Every history call made to the engine (long-polls and replays). */
  upstreamCalls: number
  longPolls: number
  replayCalls: number
  /** Calls open right now. */
  inFlight: number
  /** Long-polls open right now (each shared by every stream of its run). */
  longPollsInFlight: number
}

/** The registry of live hubs, one per run, and the counters of upstream calls. */
export class HistoryHubs {
  readonly metrics: HubMetrics = { upstreamCalls: 0, longPolls: 0, replayCalls: 0, inFlight: 0, longPollsInFlight: 0 }
  readonly #hubs = new SharedPolls<RunHub>(() => { this.#checkIdle() })
  readonly read: HistoryReader

  readonly #idleWaiters = new Set<() => void>()

  constructor (read: HistoryReader, readonly options: HubOptions, readonly observer: HubObserver = {}) {
    this.read = async (request) => {
      this.metrics.upstreamCalls++
      if (request.wait) {
        this.metrics.longPolls++
        this.metrics.longPollsInFlight++
      } else this.metrics.replayCalls++
      this.metrics.inFlight++
      try {
        const page = await read(request)
        observer.onPage?.(page)
        return page
      } finally {
        this.metrics.inFlight--
        if (request.wait) this.metrics.longPollsInFlight--
        this.#checkIdle()
      }
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

  /** Follows a run from after `position` (0 = from its first event), handing its events to `sink`. */
  subscribe (workflowId: string, runId: string, position: number, sink: SubscriptionSink): Subscription {
    return this.#hubs.of(`${workflowId}\u0000${runId}`, (onEnd) => new RunHub(workflowId, runId, this.read, this.options, onEnd))
      .subscribe(position, sink)
  }

  /** Live hubs and their subscribers, for tests and the benchmark. */
  get size (): number { return this.#hubs.size }
  get subscribers (): number {
    let n = 0
    for (const hub of this.#hubs.values()) n += hub.subscribers.size
    return n
  }

  closeAll (): void {
    for (const hub of this.#hubs.values()) {
      for (const s of [...hub.subscribers]) s.close()
      hub.close()
    }
  }
}
