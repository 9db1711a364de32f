/**
 * The runs change feed behind GET /workflow/runs/stream. One `RunsFeed` per set of filters polls
 * the engine's visibility store for the runs that started or closed in the next window of time,
 * and hands the changes to every subscriber of those filters: a thousand dashboards on the same
 * filters cost one query a poll.
 *
 * Visibility is eventually consistent: a run is listed a little after it starts or closes. A window
 * is read only once it is `delayMs` old, and never again, so every change is handed out once and
 * in feed order (position.ts); a subscriber that comes back reads what it missed with
 * one query over the windows it missed, as far back as `resumeMs`.
 */
import type { FastifyBaseLogger } from 'fastify'
import { SharedPoll } from '../../../lib/shared-poll.js'
import type { Position } from './position.js'

/** One change, its frame built once for every subscriber. */
export interface FeedChange {
  position: Position
  /** The whole SSE frame (`id:`, `event: run`, `data:`). */
  frame: string
}

/** Reads the changes of a filter's query in `[fromMs, toMs)`, in feed order. */
export type ChangeSource = (query: string, fromMs: number, toMs: number, signal?: AbortSignal) => Promise<FeedChange[]>

export interface FeedOptions {
  pollMs: number
  delayMs: number
  resumeMs: number
  /** How long one client session lasts before the stream ends (the client resumes). */
  sessionMs: number
}

/** A subscriber of a feed: receives changes after its own position, in order. */
export interface FeedSink {
  /** Changes the feed read; the sink drops the ones it already has. */
  changes: (changes: FeedChange[]) => void
}

export class RunsFeed extends SharedPoll<FeedSink> {
  /** Every change before this instant (ms) has been handed out. */
  frontier: number
  #timer: NodeJS.Timeout | undefined
  #failing = false

  constructor (
    readonly query: string,
    private readonly source: ChangeSource,
    private readonly options: FeedOptions,
    private readonly log: FastifyBaseLogger,
    onEmpty: (feed: SharedPoll<FeedSink>) => void
  ) {
    super(onEmpty)
    this.frontier = Date.now() - options.delayMs
    this.#schedule()
  }

  override close (): void {
    clearTimeout(this.#timer)
    super.close()
  }

  /** The changes in `[fromMs, frontier)` for a subscriber that comes back. */
  async catchUp (fromMs: number, signal?: AbortSignal): Promise<FeedChange[]> {
    if (fromMs >= this.frontier) return []
    return await this.source(this.query, fromMs, this.frontier, signal)
  }

  #schedule (): void {
    if (this.closed) return
    this.#timer = setTimeout(() => { void this.#poll() }, this.options.pollMs)
  }

  async #poll (): Promise<void> {
    const to = Date.now() - this.options.delayMs
    if (to > this.frontier) {
      try {
        const changes = await this.source(this.query, this.frontier, to, this.signal)
        this.frontier = to
        for (const sink of this.subscribers) sink.changes(changes)
        if (this.#failing) this.log.info({ query: this.query }, 'runs feed: visibility answers again')
        this.#failing = false
      } catch (err) {
        // The window is read again at the next poll: nothing is lost while the engine is away.
        if (!this.#failing && !this.closed) this.log.warn({ err, query: this.query }, 'runs feed: visibility query failed; retrying every poll')
        this.#failing = true
      }
    }
    this.#schedule()
  }
}

/** What a subscriber needs from its feed: where it starts and how it reads what it missed. */
export interface Joined {
  feed: RunsFeed
  /** Where the subscriber stands: its resume position, or the feed's frontier. */
  position: Position
  /** The resume position was older than `resumeMs`: the changes before `position` are not replayed. */
  expired: boolean
}
