/**
 * One upstream long-poll per run, shared by every stream of that run.
 *
 * A RunHub reads the run's history from the engine with wait-for-new-event, from event 1 to the
 * terminal event, keeps the newest events in a bounded buffer and hands each new batch to its
 * subscribers. A subscriber that is behind the buffer (a late joiner with an old cursor, or a
 * client too slow to keep up) replays from the engine with plain page reads until the buffer
 * covers it, then follows the hub. The last subscriber to leave aborts the long-poll (lib/shared-poll.ts).
 */
import { SharedPoll } from '../../../lib/shared-poll.js'
import { Batch } from './batch.js'
import { eventIdOf, terminalOf, type Terminal } from './events.js'
import { nextEngineToken, type HistoryReader } from './reader.js'
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
  readonly #buffer: Batch[] = []
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

  batchesAfter (position: number): Batch[] {
    return this.#buffer.filter((b) => b.lastId > position)
  }

  async #poll (): Promise<void> {
    let token: Uint8Array | undefined
    try {
      while (!this.closed) {
        const page = await this.read({ workflowId: this.workflowId, runId: this.runId, pageToken: token, wait: true, signal: this.signal })
        if (this.closed) return
        const fresh = page.events.filter((e) => eventIdOf(e) > this.head)
        if (fresh.length > 0) this.#append(new Batch(this.runId, fresh))
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

  #append (batch: Batch): void {
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
