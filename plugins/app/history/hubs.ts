/**
 * One upstream long-poll per run, shared by every stream of that run, and the registry of the live
 * hubs (one per run, created by the first stream of a run and dropped when its last stream leaves)
 * with the counters of upstream engine calls.
 *
 * A RunHub reads the run's history from the engine with wait-for-new-event, from event 1 to the
 * terminal event, keeps the newest events in a bounded buffer and hands each new batch to its
 * subscribers. A subscriber that is behind the buffer (a late joiner with an old cursor, or a
 * client too slow to keep up) replays from the engine with plain page reads until the buffer
 * covers it, then follows the hub. The last subscriber to leave aborts the long-poll (lib/shared-poll.ts).
 */
import { SharedPoll, SharedPolls } from '../../../lib/shared-poll.js'
import { EventChunk } from './event-chunk.js'
import { eventIdOf, terminalOf, type Terminal } from './events.js'
import { nextEngineToken, type EnginePage, type HistoryReader } from './reader.js'
import { Subscription, type SubscriptionSink } from './subscription.js'

export interface HubOptions {
  /** Events the hub keeps for late joiners and slow clients. */
  bufferEvents: number
  /** Events a subscriber may have queued before it falls back to replaying (bounds a slow client's memory). */
  maxQueuedEvents: number
}

export class RunHub extends SharedPoll<Subscription> {
  head = 0
  terminal: Terminal | undefined
  /** The terminal event has been read and the engine has nothing after it. */
  finished = false
  failure: unknown
  readonly #buffer: EventChunk[] = []
  #buffered = 0
  #started = false

  constructor (
    readonly workflowId: string,
    readonly runId: string,
    readonly read: HistoryReader,
    readonly options: HubOptions,
    onEnd: (hub: SharedPoll<Subscription>) => void
  ) {
    super(onEnd)
  }

  subscribe (position: number, sink: SubscriptionSink): Subscription {
    const subscription = new Subscription(this, position, sink)
    this.subscribers.add(subscription)
    if (!this.#started) {
      this.#started = true
      void this.#poll()
    }
    subscription.start()
    return subscription
  }

  /** Whether the buffer holds every event after `position` that the hub has read. */
  covers (position: number): boolean {
    return position >= this.head || (this.#buffer.length > 0 && this.#buffer[0].firstId <= position + 1)
  }

  chunksAfter (position: number): EventChunk[] {
    return this.#buffer.filter((b) => b.lastId > position)
  }

  async #poll (): Promise<void> {
    let token: Uint8Array | undefined
    try {
      while (!this.closed) {
        const page = await this.read({ workflowId: this.workflowId, runId: this.runId, pageToken: token, wait: true, signal: this.signal })
        if (this.closed) return
        const fresh = page.events.filter((e) => eventIdOf(e) > this.head)
        if (fresh.length > 0) this.#append(new EventChunk(this.runId, fresh))
        token = nextEngineToken(page)
        if (token) {
          // Yield to I/O before asking again: events the engine commits meanwhile then come back
          // as one page and cost each client one write, not one per event batch.
          if (fresh.length > 0) await new Promise<void>((resolve) => setImmediate(resolve))
          continue
        }
        if (!this.terminal) throw new Error(`history of ${this.workflowId}/${this.runId} ended without a terminal event`)
        this.finished = true
        for (const s of [...this.subscribers]) s.offer({ kind: 'done', terminal: this.terminal })
        return
      }
    } catch (err) {
      if (this.closed) return
      this.failure = err
      for (const s of [...this.subscribers]) s.offer({ kind: 'error', error: err })
      // Leave the registry now: the next stream for this run starts a fresh hub.
      this.close()
    }
  }

  #append (batch: EventChunk): void {
    this.#buffer.push(batch)
    this.#buffered += batch.events.length
    this.head = batch.lastId
    for (const event of batch.events) this.terminal ??= terminalOf(event)
    while (this.#buffered > this.options.bufferEvents && this.#buffer.length > 1) {
      this.#buffered -= this.#buffer.shift()!.events.length
    }
    for (const s of this.subscribers) s.offer({ kind: 'events', batch })
  }
}

/**
 * A seam for the benchmark (bench/sse.ts measures delivery lags with it); production passes none,
 * so the hubs keep no measuring state of their own.
 */
export interface HubObserver {
  /** A page arrived from the engine (its events are the objects later batches hold). */
  onPage?: (page: EnginePage) => void
  /** A batch was handed to one client's socket. */
  onDelivery?: (batch: EventChunk) => void
}

/** The registry of live hubs, one per run, and the counters of upstream calls. */
export class HistoryHubs {
  /**
   * Every history call made to the engine (`upstreamCalls`: the long-polls and the replays), and
   * those open right now (`inFlight`; `longPollsInFlight`, each shared by every stream of its run).
   */
  readonly metrics = { upstreamCalls: 0, longPolls: 0, replayCalls: 0, inFlight: 0, longPollsInFlight: 0 }
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
