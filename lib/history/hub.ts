/**
 * One upstream long-poll per run, shared by every stream of that run (DESIGN.md §5, §11).
 *
 * A RunHub reads the run's history from the engine with wait-for-new-event, from event 1 to the
 * terminal event, keeps the newest events in a bounded buffer and hands each new batch to its
 * subscribers. A subscriber that is behind the buffer (a late joiner with an old cursor, or a
 * client too slow to keep up) replays from the engine with plain page reads until the buffer
 * covers it, then follows the hub. The last subscriber to leave aborts the long-poll.
 */
import { Batch } from './batch.js'
import { eventIdOf, terminalOf, type RawEvent, type Terminal } from './events.js'

export interface ReadRequest {
  workflowId: string
  runId: string
  pageToken?: Uint8Array
  /** Long-poll: the engine answers when there are new events (or its poll interval expires). */
  wait: boolean
  pageSize?: number
  signal?: AbortSignal
}

export interface HistoryPage {
  events: RawEvent[]
  /** Undefined once a closed run's history is exhausted (or, without `wait`, at the current end). */
  nextPageToken?: Uint8Array
}

export type HistoryReader = (request: ReadRequest) => Promise<HistoryPage>

export type HubItem =
  | { kind: 'events', batch: Batch, after: number }
  | { kind: 'done', terminal: Terminal }
  | { kind: 'error', error: unknown }

export interface HubOptions {
  /** Events the hub keeps for late joiners and slow clients. */
  bufferEvents: number
  /** Events a subscriber may have queued before it falls back to replaying (bounds a slow client's memory). */
  maxQueuedEvents: number
}

const pageToken = (page: HistoryPage) => (page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined)

export class RunHub {
  head = 0
  terminal: Terminal | undefined
  /** The terminal event has been read and the engine has nothing after it. */
  finished = false
  failure: unknown
  readonly subscribers = new Set<Subscription>()
  readonly #buffer: Batch[] = []
  #buffered = 0
  readonly #abort = new AbortController()
  #closed = false
  #started = false

  constructor (
    readonly workflowId: string,
    readonly runId: string,
    readonly read: HistoryReader,
    readonly options: HubOptions,
    private readonly onEnd: (hub: RunHub) => void
  ) {}

  get closed (): boolean { return this.#closed }

  subscribe (position: number): Subscription {
    const subscription = new Subscription(this, position)
    this.subscribers.add(subscription)
    if (!this.#started) {
      this.#started = true
      void this.#poll()
    }
    return subscription
  }

  unsubscribe (subscription: Subscription): void {
    this.subscribers.delete(subscription)
    if (this.subscribers.size === 0) this.close()
  }

  /** Stops the long-poll; subscribers still holding the hub can read what it has. */
  close (): void {
    if (this.#closed) return
    this.#closed = true
    this.#abort.abort()
    this.onEnd(this)
  }

  /** Whether the buffer holds every event after `position` that the hub has read. */
  covers (position: number): boolean {
    return position >= this.head || (this.#buffer.length > 0 && this.#buffer[0].firstId <= position + 1)
  }

  batchesAfter (position: number): Batch[] {
    return this.#buffer.filter((b) => b.lastId > position)
  }

  async #poll (): Promise<void> {
    let token: Uint8Array | undefined
    try {
      while (!this.#closed) {
        const page = await this.read({ workflowId: this.workflowId, runId: this.runId, pageToken: token, wait: true, signal: this.#abort.signal })
        if (this.#closed) return
        const fresh = page.events.filter((e) => eventIdOf(e) > this.head)
        if (fresh.length > 0) this.#append(new Batch(this.runId, fresh))
        token = pageToken(page)
        if (token) continue
        if (!this.terminal) throw new Error(`history of ${this.workflowId}/${this.runId} ended without a terminal event`)
        this.finished = true
        for (const s of this.subscribers) s.offer({ kind: 'done', terminal: this.terminal })
        return
      }
    } catch (err) {
      if (this.#closed) return
      this.failure = err
      for (const s of this.subscribers) s.offer({ kind: 'error', error: err })
      // Leave the registry now: the next stream for this run starts a fresh hub.
      this.close()
    }
  }

  #append (batch: Batch): void {
    this.#buffer.push(batch)
    this.#buffered += batch.events.length
    this.head = batch.lastId
    for (const event of batch.events) this.terminal ??= terminalOf(event)
    while (this.#buffered > this.options.bufferEvents && this.#buffer.length > 1) {
      this.#buffered -= this.#buffer.shift()!.events.length
    }
    for (const s of this.subscribers) s.offer({ kind: 'events', batch, after: 0 })
  }
}

/**
 * One stream's view of a hub: `next()` yields the events after the client's position, in order,
 * each exactly once, then `done` (or `error`). `position` is the last event handed out.
 */
export class Subscription {
  readonly #queue: HubItem[] = []
  #queuedEvents = 0
  #live = false
  #closed = false
  #wake: (() => void) | undefined
  /** Created on the first replay only: an idle stream stays small. */
  #abort: AbortController | undefined
  #replayToken: Uint8Array | undefined
  #replayFresh = 0

  constructor (readonly hub: RunHub, public position: number) {}

  /** Called by the hub; a subscriber that is still catching up picks events up from the buffer instead. */
  offer (item: HubItem): void {
    if (!this.#live || this.#closed) return
    if (item.kind === 'events') {
      if (this.#queuedEvents + item.batch.events.length > this.hub.options.maxQueuedEvents) {
        // Too slow for the live feed: drop the queue and catch up from the buffer or the engine.
        this.#queue.length = 0
        this.#queuedEvents = 0
        this.#live = false
      } else {
        this.#queue.push(item)
        this.#queuedEvents += item.batch.events.length
      }
    } else {
      this.#queue.push(item)
    }
    this.#wakeUp()
  }

  /** The next item that is already queued, without waiting or reading the engine. */
  nextReady (): HubItem | undefined {
    while (!this.#closed) {
      const item = this.#queue.shift()
      if (item?.kind !== 'events') return item
      this.#queuedEvents -= item.batch.events.length
      if (item.batch.lastId <= this.position) continue
      const after = this.position
      this.position = item.batch.lastId
      return { ...item, after }
    }
    return undefined
  }

  async next (): Promise<HubItem | undefined> {
    while (!this.#closed) {
      const item = this.nextReady()
      if (item) return item
      if (this.#live) {
        await new Promise<void>((resolve) => { this.#wake = resolve })
      } else {
        try {
          await this.#catchUp()
        } catch (err) {
          if (this.#closed) return undefined
          return { kind: 'error', error: err }
        }
      }
    }
    return undefined
  }

  close (): void {
    if (this.#closed) return
    this.#closed = true
    this.#abort?.abort()
    this.hub.unsubscribe(this)
    this.#wakeUp()
  }

  #wakeUp (): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  /** Either joins the live feed (synchronously, so nothing falls between) or replays one engine page. */
  async #catchUp (): Promise<void> {
    const { hub } = this
    if (hub.covers(this.position)) {
      for (const batch of hub.batchesAfter(this.position)) this.#queue.push({ kind: 'events', batch, after: 0 })
      if (hub.finished && hub.terminal) this.#queue.push({ kind: 'done', terminal: hub.terminal })
      else if (hub.failure !== undefined) this.#queue.push({ kind: 'error', error: hub.failure })
      this.#live = true
      this.#replayToken = undefined
      this.#replayFresh = 0
      return
    }
    if (hub.failure !== undefined) throw hub.failure
    this.#abort ??= new AbortController()
    const page = await hub.read({ workflowId: hub.workflowId, runId: hub.runId, pageToken: this.#replayToken, wait: false, signal: this.#abort.signal })
    const fresh = page.events.filter((e) => eventIdOf(e) > this.position)
    if (fresh.length > 0) this.#queue.push({ kind: 'events', batch: new Batch(hub.runId, fresh), after: 0 })
    this.#replayFresh += fresh.length
    this.#replayToken = pageToken(page)
    if (this.#replayToken === undefined) {
      // A pass over everything the engine has ends where the buffer covers us, or the hub moved
      // on meanwhile and the next pass catches up. A pass that found nothing new is inconsistent:
      // fail instead of spinning.
      if (this.#replayFresh === 0) throw new Error(`replay of ${hub.workflowId}/${hub.runId} cannot reach the live feed`)
      this.#replayFresh = 0
    }
  }
}

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

  recordDelivery (batch: Batch, after: number): void {
    if (!this.deliveryLags || !this.readLags) return
    this.deliveryLags[this.deliveries++ % this.deliveryLags.length] = performance.now() - batch.readAt
    for (const event of batch.events) {
      if (eventIdOf(event) <= after) continue
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
