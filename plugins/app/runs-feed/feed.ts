/**
 * One `RunsFeed` per filter set: a thousand dashboards on one filter cost one visibility query a poll, and a
 * thousand resuming after a restart one or two (docs/architecture.md, "runs change feed", says how).
 */
import type { FastifyBaseLogger } from 'fastify'
import { SharedPoll } from '../../../lib/shared-poll.js'
import type { EngineClock } from './engine-clock.js'
import type { Position } from './position.js'

export interface FeedChange {
  position: Position
  frame: string
}

/** `toMs` Infinity: all from `fromMs` on. */
export type ChangeSource = (query: string, fromMs: number, toMs: number, signal?: AbortSignal) => Promise<FeedChange[]>

export interface FeedOptions {
  pollMs: number
  delayMs: number
  resumeMs: number
  /** Each session ends at a random moment in its last quarter (stream.ts). */
  sessionMs: number
  /** 0: no cap; a new one past it is a 503. */
  maxFeeds: number
}

export interface FeedSink {
  /** The sink drops the ones it already has. */
  changes: (changes: FeedChange[]) => void
}

/** Trimmed once twice as old, so `#recentFrom` (and the shared reads that end there) stays put this long. */
const RECENT_MS = 60_000
const RECENT_MAX_CHANGES = 5000
/** One heartbeat: quiet clients stand within one of each other and share one or two reads (each drops the extra changes). */
const READ_ALIGN_MS = 15_000
/** The clients of a restarted replica come back over a few seconds. */
const READ_KEPT_MS = 30_000
const MAX_READS = 8

interface SharedRead {
  from: number
  to: number
  changes: Promise<FeedChange[]>
  /** Undefined: in flight. */
  doneAt?: number
}

export class RunsFeed extends SharedPoll<FeedSink> {
  /** Engine time (engine-clock.ts). */
  frontier: number
  #timer: NodeJS.Timeout | undefined
  #failing = false
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

  /** May include changes before `fromMs`, which the subscriber drops. */
  async catchUp (fromMs: number): Promise<FeedChange[]> {
    if (fromMs >= this.frontier) return []
    // Taken now: with the subscriber's feed changes from here on, nothing is missing.
    const recentFrom = this.#recentFrom
    const recent = this.#recent.filter((w) => w.to > fromMs).flatMap((w) => w.changes)
    if (fromMs >= recentFrom) return recent
    const older = await this.#sharedRead(fromMs, recentFrom).changes
    return [...older.filter((c) => c.position.ms < recentFrom), ...recent]
  }

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
        // Read to the end: the newest changes tell the engine's clock; they go out once `delayMs` old.
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

export interface Joined {
  feed: RunsFeed
  position: Position
  /** The changes before `position` are not replayed. */
  expired: boolean
}
