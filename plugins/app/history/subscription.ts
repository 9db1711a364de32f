/**
 * One stream's view of a run's hub (hubs.ts): it follows the hub live, or catches up
 * from the hub's buffer or, when that does not reach back far enough, from the engine.
 *
 * Push, not pull: items go straight to the subscriber's sink as the hub hands them out, so an idle
 * stream holds no suspended async call chain and a fan-out to many clients is one plain loop of
 * socket writes. Only a client whose socket is full (or a replay reading the engine) waits.
 */
import { EventChunk } from './event-chunk.js'
import { eventIdOf, type Terminal } from './events.js'
import { nextEngineToken, type HistoryReader } from './reader.js'
import type { RunRef } from '@flowport/core/run'

export type HubEnd = { kind: 'done', terminal: Terminal } | { kind: 'error', error: unknown }
export type HubItem = { kind: 'events', batch: EventChunk } | HubEnd

/** Where a subscription hands its items, in order, each event exactly once (stream.ts writes them to a client). */
export interface SubscriptionSink {
  /** The events of `batch` after `after`; false when the client cannot take more now (call `resume()` once it can). */
  events: (batch: EventChunk, after: number) => boolean
  /** The run ended, or its history cannot be read; nothing follows and the subscription is closed. `run`: the hub's. */
  end: (item: HubEnd, run: RunRef) => void
}

/** What a subscription reads of its run's hub. */
interface SubscriptionSource extends Readonly<RunRef> {
  readonly read: HistoryReader
  readonly options: { maxQueuedEvents: number }
  readonly finished: boolean
  readonly terminal: Terminal | undefined
  readonly failure: unknown
  /** Whether the hub's buffer holds every event after `position` that the hub has read. */
  covers: (position: number) => boolean
  chunksAfter: (position: number) => EventChunk[]
  leave: (subscription: Subscription) => void
}

/** `position` is the last event handed to the sink. */
export class Subscription {
  /** Items held while the sink is paused (bounded by `maxQueuedEvents`); created when first needed. */
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

  /** Starts delivering: from the hub's buffer when it reaches back far enough, else from the engine. */
  start (): void { void this.#catchUp() }

  /** Called by the hub; a subscriber that is still catching up picks events up from the buffer instead. */
  offer (item: HubItem): void {
    if (this.#live && !this.#closed) this.#push(item)
  }

  /** The sink can take more again: hand over what waited, then go on catching up if the live feed was left. */
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

  /** Joins the live feed (synchronously, so nothing falls between) or replays engine pages until it can. */
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
          // A pass over everything the engine has ends where the buffer covers us, or the hub moved
          // on meanwhile and the next pass catches up. A pass that found nothing new is inconsistent:
          // fail instead of spinning.
          if (this.#replayFresh === 0) throw new Error(`replay of ${hub.workflowId}/${hub.runId} cannot reach the live feed`)
          this.#replayFresh = 0
        }
        // Not live and not paused: this goes straight to the sink.
        if (fresh.length > 0) this.#push({ kind: 'events', batch: new EventChunk(hub.runId, fresh) })
      }
    } catch (err) {
      if (!this.#closed) this.#push({ kind: 'error', error: err })
    } finally {
      this.#replaying = false
    }
  }
}
