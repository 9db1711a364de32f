/**
 * One SSE session on the runs feed: a `feed` frame (where the session starts), an `expired` frame
 * when the client's Last-Event-ID is older than the feed replays, the changes it missed (one
 * catch-up read), then every change the shared feed reads, each a `run` frame with its position as
 * `id:`. The heartbeat is a `progress` frame carrying the feed's frontier as its `id:`, so a client
 * that saw no change for hours still resumes from where it stood rather than from an expired
 * position (a comment could not carry it to every SSE parser). A session ends at a heartbeat
 * at a random moment between 75 % and 100 % of `sessionMs`: an EventSource reconnects and
 * resumes, so long-lived dashboards spread over the replicas that exist now, not those that
 * existed when they first connected, and the clients that connected together (after a restart)
 * do not all come back at the same moment.
 *
 * Ids only go forward: a frame carries an `id:` only when its position is past every id the client
 * already has (the one it resumed from, the ones sent since). A resumed session's `feed` frame and a
 * heartbeat while nothing moved carry none, so a client that keys on ids never sees one twice, and
 * an EventSource keeps the id it has.
 */
import type { FastifyReply } from 'fastify'
import { fromEngineError } from '../engine/index.js'
import { RETRY_MS, compactForLife, type OpenStream, type StreamRegistry } from '../../external/sse/streams.js'
import type { RunsFeedOpen, RunsFeedProgress, RunsFeedQuery } from '../../../schemas/runs-feed.js'
import { validationError, type Issue } from '../../../lib/api-error.js'
import { visibilityQuery } from '../runs/index.js'
import type { EngineClock } from './engine-clock.js'
import type { FeedChange, FeedOptions, FeedSink, Joined, RunsFeed } from './feed.js'
import { comparePositions, decodePosition, encodePosition, timePosition, type Position } from './position.js'

type RunsFeedFilters = Omit<RunsFeedQuery, 'lastEventId'>

/** The share of `sessionMs` over which session ends are spread at random. */
const SESSION_SPREAD = 0.25

/** When a session that starts now ends: somewhere in the last SESSION_SPREAD of `sessionMs`. */
export const sessionEnd = (sessionMs: number, now = Date.now()) => now + Math.round(sessionMs * (1 - SESSION_SPREAD * Math.random()))

/** How far ahead of this replica's idea of the engine's clock another replica's id may be (it may know a newer fact, engine-clock.ts). */
const MAX_CLOCK_AHEAD_MS = 24 * 3600_000

/** A client this far behind on its socket is dropped; it resumes from its last id. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024

export interface FeedDeps {
  /** Subscribes a stream to the shared feed of a query (runs-feed.ts). */
  join: (query: string, resume: Position | undefined, sink: FeedSink) => Joined
  options: FeedOptions
  streams: StreamRegistry
  /** The engine's clock, as this replica tells it (engine-clock.ts). */
  clock: EngineClock
}

export interface FeedSession {
  reply: FastifyReply
  /** The filters of the request (those of GET /workflow/runs). */
  filters: RunsFeedFilters
  /** The client's Last-Event-ID, a feed position (absent: from now). */
  lastEventId?: string
  /** Where the Last-Event-ID was sent, for the errors about it. */
  issue: Omit<Issue, 'message'>
}

/** The position the client resumes from; checked before the first SSE byte (JSON errors). */
function resumeOf (lastEventId: string | undefined, issue: Omit<Issue, 'message'>, clock: EngineClock): Position | undefined {
  if (lastEventId === undefined) return undefined
  const position = decodePosition(lastEventId)
  if (!position) throw validationError([{ ...issue, message: 'Not an event id of this feed' }])
  // An id names a point the client has every change up to, in the engine's time (a progress id:
  // the frontier of the replica that sent it, engine-clock.ts). That replica may know a newer fact
  // of the engine's clock than this one: an id ahead of this one's frontier resumes as well (no
  // catch-up is owed, changes after it are sent as the feed reads them). Only an id further ahead
  // than any replica could know was issued by none.
  if (position.ms > clock.now() + MAX_CLOCK_AHEAD_MS) throw validationError([{ ...issue, message: 'The event id is ahead of the feed (a time still to come)' }])
  return position
}

class FeedStream implements FeedSink, OpenStream {
  feed: RunsFeed | undefined
  /** Changes read by the feed while this stream catches up; undefined once it is live. */
  pending: FeedChange[] | undefined
  /** The furthest position the client has as an id: where it resumed from, then the last id sent. */
  sentUpTo: Position
  #ended = false

  constructor (
    private readonly reply: FastifyReply,
    private readonly streams: StreamRegistry,
    public position: Position,
    /** When the session ends (checked at heartbeats, so no timer per stream). */
    private readonly endsAt: number
  ) {
    this.sentUpTo = position
  }

  changes (changes: FeedChange[]): void {
    if (this.pending) this.pending.push(...changes)
    else this.#write(changes)
  }

  /** The catch-up read arrived: it, then what the feed read meanwhile, without what overlaps. */
  live (missed: FeedChange[]): void {
    const pending = this.pending ?? []
    this.pending = undefined
    this.#write(missed)
    this.#write(pending)
  }

  #write (changes: FeedChange[]): void {
    // A change list is already in feed order.
    const fresh = changes.filter((c) => comparePositions(c.position, this.position) > 0)
    if (fresh.length === 0 || !this.reply.sse.isConnected) return
    this.position = this.sentUpTo = fresh.at(-1)!.position
    this.reply.raw.write(fresh.map((c) => c.frame).join(''))
    if (this.reply.raw.writableLength > MAX_BUFFERED_BYTES) this.stop()
  }

  heartbeat (): void {
    if (!this.reply.sse.isConnected) return
    // The client reconnects by itself (`retry:`) and resumes exactly, maybe on a replica added since.
    if (Date.now() >= this.endsAt) {
      this.stop()
      return
    }
    const frontier = this.feed && !this.pending ? timePosition(this.feed.frontier) : undefined
    if (frontier && comparePositions(frontier, this.position) > 0) this.position = frontier
    const progress: RunsFeedProgress = { before: new Date(this.position.ms).toISOString() }
    const id = this.idPast(this.position)
    this.reply.raw.write(`${id === undefined ? '' : `id: ${id}\n`}event: progress\ndata: ${JSON.stringify(progress)}\n\n`)
  }

  /** The `id:` of a frame at `position`, which the client then has; none unless it is past every id the client has. */
  idPast (position: Position): string | undefined {
    if (comparePositions(position, this.sentUpTo) <= 0) return undefined
    this.sentUpTo = position
    return encodePosition(position)
  }

  fail (err: unknown): void {
    const known = fromEngineError(err, {})
    if (!known) this.reply.log.error({ err }, 'runs feed: catch-up read failed')
    const data = known ? { error: known.error, message: known.message } : { error: 'InternalServerError', message: 'The runs feed failed' }
    if (this.reply.sse.isConnected) this.reply.raw.write(`event: server_error\ndata: ${JSON.stringify(data)}\n\n`)
    this.stop()
  }

  stop (): void {
    this.closed()
    this.reply.sse.close()
  }

  /** The connection closed, by either side: let go of the feed and the registry. */
  closed (): void {
    if (this.#ended) return
    this.#ended = true
    this.feed?.leave(this)
    this.streams.delete(this)
  }
}

export async function streamRunsFeed ({ join, options, streams, clock }: FeedDeps, { reply, filters, lastEventId, issue }: FeedSession): Promise<void> {
  // The first fact of the engine's clock, before the first feed of this replica starts from it.
  await clock.seed()
  const resume = resumeOf(lastEventId, issue, clock)
  const query = visibilityQuery(filters)
  const stream = new FeedStream(reply, streams, resume ?? timePosition(0), sessionEnd(options.sessionMs))
  // Subscribed before the first byte: whatever the feed reads from now on reaches this stream.
  const { feed, position, expired } = join(query, resume, stream)
  stream.feed = feed
  stream.position = position
  if (resume !== undefined && !expired && position.ms < feed.frontier) stream.pending = []
  const open: RunsFeedOpen = { from: new Date(position.ms).toISOString(), delayMs: options.delayMs, resumeMs: options.resumeMs }
  try {
    await reply.sse.send({ event: 'feed', id: stream.idPast(position), data: open, retry: RETRY_MS })
    if (expired) {
      await reply.sse.send({
        event: 'expired',
        data: { lastEventId: encodePosition(resume!), message: `Last-Event-ID is older than the feed replays (${options.resumeMs} ms): changes before ${open.from} are not sent; list them with GET /workflow/runs` }
      })
    }
  } catch (err) {
    stream.closed()
    throw err
  }
  if (!reply.sse.isConnected) {
    stream.closed()
    return
  }
  compactForLife(reply)
  reply.sse.keepAlive()
  reply.sse.onClose(() => stream.closed())
  streams.add(stream)
  if (stream.pending) {
    try {
      stream.live(await feed.catchUp(position.ms))
    } catch (err) {
      stream.fail(err)
    }
  }
}
