/**
 * Push, not pull: items go to the sink as the hub hands them out, so an idle stream holds no
 * suspended async chain and a fan-out is one loop of socket writes. Only a full socket (or a
 * replay from the engine) waits.
 */
import { EventChunk } from './event-chunk.js'
import { eventIdOf, type Terminal } from './events.js'
import { nextEngineToken, type HistoryReader } from './reader.js'
import type { RunRef } from '@flowport/core/run'

export type HubEnd = { kind: 'done', terminal: Terminal } | { kind: 'error', error: unknown }
export type HubItem = { kind: 'events', batch: EventChunk } | HubEnd

export interface SubscriptionSink {
  /** False when the client cannot take more now (call `resume()` once it can). */
  events: (batch: EventChunk, after: number) => boolean
  /** Nothing follows; `run`: the hub's. */
  end: (item: HubEnd, run: RunRef) => void
}

interface SubscriptionSource extends Readonly<RunRef> {
  readonly read: HistoryReader
  readonly options: { maxQueuedEvents: number }
  readonly finished: boolean
  readonly terminal: Terminal | undefined
  readonly failure: unknown
  covers: (position: number) => boolean
  chunksAfter: (position: number) => EventChunk[]
  leave: (subscription: Subscription) => void
}

export class Subscription {
  /** Bounded by `maxQueuedEvents`; created when first needed. */
  #queue: HubItem[] | undefined
  #queuedEvents = 0
  #live = false
  #paused = false
  #closed = false
  #replaying = false
  /** Created on the first replay only: an idle stream stays small. */
  #abort: AbortController | undefined
  #replayToken: Uint8Array | undefined
  #replayFresh = 0

  constructor (readonly hub: SubscriptionSource, public position: number, readonly sink: SubscriptionSink) {}

  get closed (): boolean { return this.#closed }

  start (): void { void this.#catchUp() }

  /** A subscriber still catching up picks events up from the buffer instead. */
  offer (item: HubItem): void {
    if (this.#live && !this.#closed) this.#push(item)
  }

  resume (): void {
    if (this.#closed || !this.#paused) return
    this.#paused = false
    for (let item = this.#queue?.shift(); item; item = this.#queue?.shift()) {
      if (item.kind === 'events') this.#queuedEvents -= item.batch.events.length
      this.#deliver(item)
      if (this.#paused || this.#closed) return
    }
    if (!this.#live) void this.#catchUp()
  }

  close (): void {
    if (this.#closed) return
    this.#closed = true
    this.#queue = undefined
    this.#abort?.abort()
    this.hub.leave(this)
  }

  #push (item: HubItem): void {
    if (!this.#paused) {
      this.#deliver(item)
      return
    }
    if (item.kind === 'events' && this.#queuedEvents + item.batch.events.length > this.hub.options.maxQueuedEvents) {
      // Too slow for the live feed: drop the queue and catch up from the buffer or the engine once drained.
      this.#queue = undefined
      this.#queuedEvents = 0
      this.#live = false
      return
    }
    (this.#queue ??= []).push(item)
    if (item.kind === 'events') this.#queuedEvents += item.batch.events.length
  }

  #deliver (item: HubItem): void {
    if (item.kind !== 'events') {
      this.close()
      this.sink.end(item, this.hub)
      return
    }
    if (item.batch.lastId <= this.position) return
    const after = this.position
    this.position = item.batch.lastId
    if (!this.sink.events(item.batch, after)) this.#paused = true
  }

  /** Joins synchronously, so nothing falls between. */
  async #catchUp (): Promise<void> {
    if (this.#replaying) return
    this.#replaying = true
    const { hub } = this
    try {
      while (!this.#closed && !this.#live && !this.#paused) {
        if (hub.covers(this.position)) {
          this.#live = true
          this.#replayToken = undefined
          this.#replayFresh = 0
          for (const batch of hub.chunksAfter(this.position)) this.#push({ kind: 'events', batch })
          if (hub.finished && hub.terminal) this.#push({ kind: 'done', terminal: hub.terminal })
          else if (hub.failure !== undefined) this.#push({ kind: 'error', error: hub.failure })
          return
        }
        if (hub.failure !== undefined) throw hub.failure
        this.#abort ??= new AbortController()
        const page = await hub.read({ workflowId: hub.workflowId, runId: hub.runId, pageToken: this.#replayToken, wait: false, signal: this.#abort.signal })
        if (this.#closed) return
        const fresh = page.events.filter((e) => eventIdOf(e) > this.position)
        this.#replayFresh += fresh.length
        this.#replayToken = nextEngineToken(page)
        if (this.#replayToken === undefined) {
          // A pass over the engine ends where the buffer covers us or the hub moved on; a pass that
          // found nothing new is inconsistent: fail instead of spinning.
          if (this.#replayFresh === 0) throw new Error(`replay of ${hub.workflowId}/${hub.runId} cannot reach the live feed`)
          this.#replayFresh = 0
        }
        if (fresh.length > 0) this.#push({ kind: 'events', batch: new EventChunk(hub.runId, fresh) })
      }
    } catch (err) {
      if (!this.#closed) this.#push({ kind: 'error', error: err })
    } finally {
      this.#replaying = false
    }
  }
}
