/**
 * One stream's view of a run's hub (lib/history/hub.ts): it follows the hub live, or catches up
 * from the hub's buffer or, when that does not reach back far enough, from the engine.
 */
import { Batch } from './batch.js'
import { eventIdOf, type Terminal } from './events.js'
import { nextEngineToken, type HistoryReader } from './reader.js'

export type HubItem =
  | { kind: 'events', batch: Batch, after: number }
  | { kind: 'done', terminal: Terminal }
  | { kind: 'error', error: unknown }

/** What a subscription reads of its run's hub (lib/history/hub.ts). */
export interface SubscriptionSource {
  readonly workflowId: string
  readonly runId: string
  readonly read: HistoryReader
  readonly options: { maxQueuedEvents: number }
  readonly finished: boolean
  readonly terminal: Terminal | undefined
  readonly failure: unknown
  /** Whether the hub's buffer holds every event after `position` that the hub has read. */
  covers: (position: number) => boolean
  batchesAfter: (position: number) => Batch[]
  unsubscribe: (subscription: Subscription) => void
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

  constructor (readonly hub: SubscriptionSource, public position: number) {}

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
    this.#replayToken = nextEngineToken(page)
    if (this.#replayToken === undefined) {
      // A pass over everything the engine has ends where the buffer covers us, or the hub moved
      // on meanwhile and the next pass catches up. A pass that found nothing new is inconsistent:
      // fail instead of spinning.
      if (this.#replayFresh === 0) throw new Error(`replay of ${hub.workflowId}/${hub.runId} cannot reach the live feed`)
      this.#replayFresh = 0
    }
  }
}
