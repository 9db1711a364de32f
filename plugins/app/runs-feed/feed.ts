/**
 * The runs change feed behind GET /workflow/runs/stream. One `RunsFeed` per set of filters polls
 * the engine's visibility store for the runs that started or closed in the next window of time,
 * and hands the changes to every subscriber of those filters: a thousand dashboards on the same
 * filters cost one query a poll.
 *
 * Visibility is eventually consistent: a run is listed a little after it starts or closes. A window
 * is read only once it is `delayMs` old, and never again, so every change is handed out once and
 * in feed order (position.ts). A subscriber that comes back gets what it missed from the windows
 * the feed keeps in memory (about the last minute), and what is older from one catch-up read
 * shared by every subscriber coming back from a nearby position: after a replica restart, a
 * thousand clients resuming at once cost one or two queries, not a thousand.
 */
import type { FastifyBaseLogger } from 'fastify'
import { SharedPoll } from '../../../lib/shared-poll.js'
import type { EngineClock } from './engine-clock.js'
import type { Position } from './position.js'

/** One change, its frame built once for every subscriber. */
export interface FeedChange {
  position: Position
  /** The whole SSE frame (`id:`, `event: run`, `data:`). */
  frame: string
}

/** Reads the changes of a filter's query in `[fromMs, toMs)` (toMs Infinity: all from fromMs on), in feed order. */
export type ChangeSource = (query: string, fromMs: number, toMs: number, signal?: AbortSignal) => Promise<FeedChange[]>

export interface FeedOptions {
  pollMs: number
  delayMs: number
  resumeMs: number
  /** How long one client session lasts before the stream ends (the client resumes); each session ends at a random moment in its last quarter (stream.ts). */
  sessionMs: number
  /** Distinct filter sets polled at once (0: no cap); a new one past it is a 503. */
  maxFeeds: number
}

/** A subscriber of a feed: receives changes after its own position, in order. */
export interface FeedSink {
  /** Changes the feed read; the sink drops the ones it already has. */
  changes: (changes: FeedChange[]) => void
}

/** How long the feed keeps the windows it read, for subscribers that come back: trimmed once twice as old, so `#recentFrom` (and the shared reads that end there) stays put for this long. */
const RECENT_MS = 60_000
/** At most this many changes kept (a busy namespace), trimmed to half. */
const RECENT_MAX_CHANGES = 5000
/** A catch-up read starts at a multiple of this, one heartbeat (SERVICE_SSE_HEARTBEAT_MS's default): quiet clients stand within one of each other, and share one or two reads (the extra changes are dropped by each). */
const READ_ALIGN_MS = 15_000
/** A done catch-up read serves later subscribers this long (the clients of a restarted replica come back over a few seconds). */
const READ_KEPT_MS = 30_000
/** Catch-up reads kept at most (in flight or done). */
const MAX_READS = 8

/** A catch-up read of `[from, to)`, shared by the subscribers it covers. */
interface SharedRead {
  from: number
  to: number
  changes: Promise<FeedChange[]>
  /** When it came back (undefined: in flight). */
  doneAt?: number
}

export class RunsFeed extends SharedPoll<FeedSink> {
  /** Every change before this instant (ms, the engine's time: engine-clock.ts) has been handed out. */
  frontier: number
  #timer: NodeJS.Timeout | undefined
  #failing = false
  /** The windows read lately, `[#recentFrom, frontier)`, oldest first. */
  readonly #recent: Array<{ to: number, changes: FeedChange[] }> = []
  #recentFrom: number
  #recentCount = 0
  readonly #reads: SharedRead[] = []

  constructor (
    readonly query: string,
    private readonly source: ChangeSource,
    private readonly options: FeedOptions,
    private readonly log: FastifyBaseLogger,
    onEmpty: (feed: SharedPoll<FeedSink>) => void,
    private readonly clock: EngineClock
  ) {
    super(onEmpty)
    this.frontier = clock.now() - options.delayMs
    this.#recentFrom = this.frontier
    this.#schedule()
  }

  override close (): void {
    clearTimeout(this.#timer)
    super.close()
  }

  /**
   * The changes in `[fromMs, frontier)` for a subscriber that comes back (maybe some before
   * `fromMs`, which it drops): the windows kept in memory, and before them a shared read.
   */
  async catchUp (fromMs: number): Promise<FeedChange[]> {
    if (fromMs >= this.frontier) return []
    // Taken now: with the subscriber's feed changes from here on, nothing is missing.
    const recentFrom = this.#recentFrom
    const recent = this.#recent.filter((w) => w.to > fromMs).flatMap((w) => w.changes)
    if (fromMs >= recentFrom) return recent
    const older = await this.#sharedRead(fromMs, recentFrom).changes
    return [...older.filter((c) => c.position.ms < recentFrom), ...recent]
  }

  /** A read of `[≤ fromMs, to)`: one in flight or just done that covers it, or a new one. */
  #sharedRead (fromMs: number, to: number): SharedRead {
    const now = Date.now()
    for (let i = this.#reads.length - 1; i >= 0; i--) {
      const read = this.#reads[i]!
      if (read.to !== to || (read.doneAt !== undefined && now - read.doneAt > READ_KEPT_MS)) this.#reads.splice(i, 1)
    }
    const covering = this.#reads.find((r) => r.from <= fromMs)
    if (covering) return covering
    const from = Math.floor(fromMs / READ_ALIGN_MS) * READ_ALIGN_MS
    const read: SharedRead = { from, to, changes: this.source(this.query, from, to, this.signal) }
    read.changes.then((changes) => {
      read.doneAt = Date.now()
      // A large read serves those waiting for it, not later ones: it is not kept.
      if (changes.length > RECENT_MAX_CHANGES) this.#forget(read)
    }, () => { this.#forget(read) })
    this.#reads.push(read)
    if (this.#reads.length > MAX_READS) this.#reads.shift()
    return read
  }

  #forget (read: SharedRead): void {
    const i = this.#reads.indexOf(read)
    if (i >= 0) this.#reads.splice(i, 1)
  }

  /** Keeps the window just read; trims the oldest once they span twice RECENT_MS (or too many changes). */
  #keep (to: number, changes: FeedChange[]): void {
    this.#recent.push({ to, changes })
    this.#recentCount += changes.length
    if (to - this.#recentFrom <= 2 * RECENT_MS && this.#recentCount <= RECENT_MAX_CHANGES) return
    while (this.#recent.length > 1 && (to - this.#recentFrom > RECENT_MS || this.#recentCount > RECENT_MAX_CHANGES / 2)) {
      const oldest = this.#recent.shift()!
      this.#recentFrom = oldest.to
      this.#recentCount -= oldest.changes.length
    }
  }

  #schedule (): void {
    if (this.closed) return
    this.#timer = setTimeout(() => { void this.#poll() }, this.options.pollMs)
  }

  async #poll (): Promise<void> {
    const to = this.clock.now() - this.options.delayMs
    if (to > this.frontier) {
      try {
        // Read to the end, not to `to`: the newest changes tell the engine's clock (engine-clock.ts);
        // they are handed out at a later poll, once `delayMs` old by it.
        const changes = (await this.source(this.query, this.frontier, Infinity, this.signal)).filter((c) => c.position.ms < to)
        this.frontier = to
        this.#keep(to, changes)
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
