/**
 * One upstream long-poll per run (from event 1 to the terminal event), shared by every stream of
 * it, with a bounded buffer of the newest events. A subscriber behind the buffer (an old cursor, a
 * slow client) replays with plain page reads until the buffer covers it, then follows the hub.
 */
import { SharedPoll, SharedPolls } from '../../../lib/shared-poll.js'
import { EventChunk } from './event-chunk.js'
import { eventIdOf, terminalOf, type Terminal } from './events.js'
import { nextEngineToken, type EnginePage, type HistoryReader } from './reader.js'
import { Subscription, type SubscriptionSink } from './subscription.js'

export interface HubOptions {
  bufferEvents: number
  /** Bounds a slow client's memory: past it, the client replays. */
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
          // Yield to I/O first: events committed meanwhile come back as one page, one write per client.
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

/** bench/sse.ts measures delivery lags through this; production passes none, so hubs keep no measuring state. */
export interface HubObserver {
  /** Its events are the objects later batches hold. */
  onPage?: (page: EnginePage) => void
  onDelivery?: (batch: EventChunk) => void
}

export class HistoryHubs {
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

  /** `position` 0 = from the first event. */
  subscribe (workflowId: string, runId: string, position: number, sink: SubscriptionSink): Subscription {
    return this.#hubs.of(`${workflowId}\u0000${runId}`, (onEnd) => new RunHub(workflowId, runId, this.read, this.options, onEnd))
      .subscribe(position, sink)
  }

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
