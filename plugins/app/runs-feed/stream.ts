/**
 * The heartbeat is a `progress` frame whose `id:` is the feed's frontier, so a client quiet for
 * hours resumes where it stood, not from an expired position (a comment could not carry an id). A
 * session ends at a heartbeat at a random moment in 75–100 % of `sessionMs`: clients reconnect
 * onto the replicas that exist now, and those that came together do not all return together.
 * Ids only go forward: a frame carries an `id:` only past every id the client has, so a client
 * keying on ids never sees one twice.
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

const SESSION_SPREAD = 0.25

export const sessionEnd = (sessionMs: number, now = Date.now()) => now + Math.round(sessionMs * (1 - SESSION_SPREAD * Math.random()))

/** Another replica may know a newer fact of the engine's clock (engine-clock.ts). */
const MAX_CLOCK_AHEAD_MS = 24 * 3600_000

/** A client this far behind on its socket is dropped; it resumes from its last id. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024

export interface FeedDeps {
  join: (query: string, resume: Position | undefined, sink: FeedSink) => Joined
  options: FeedOptions
  streams: StreamRegistry
  clock: EngineClock
}

export interface FeedSession {
  reply: FastifyReply
  filters: RunsFeedFilters
  lastEventId?: string
  issue: Omit<Issue, 'message'>
}

/** Checked before the first SSE byte (JSON errors). */
function resumeOf (lastEventId: string | undefined, issue: Omit<Issue, 'message'>, clock: EngineClock): Position | undefined {
  if (lastEventId === undefined) return undefined
  const position = decodePosition(lastEventId)
  if (!position) throw validationError([{ ...issue, message: 'Not an event id of this feed' }])
  // An id ahead of this replica's frontier came from one that knew a newer engine fact: it resumes
  // too. Only an id further ahead than any replica could know was issued by none.
  if (position.ms > clock.now() + MAX_CLOCK_AHEAD_MS) throw validationError([{ ...issue, message: 'The event id is ahead of the feed (a time still to come)' }])
  return position
}

class FeedStream implements FeedSink, OpenStream {
  feed: RunsFeed | undefined
  /** Undefined once live. */
  pending: FeedChange[] | undefined
  sentUpTo: Position
  #ended = false

  constructor (
    private readonly reply: FastifyReply,
    private readonly streams: StreamRegistry,
    public position: Position,
    /** Checked at heartbeats, so no timer per stream. */
    private readonly endsAt: number
  ) {
    this.sentUpTo = position
  }

  changes (changes: FeedChange[]): void {
    if (this.pending) this.pending.push(...changes)
    else this.#write(changes)
  }

  live (missed: FeedChange[]): void {
    const pending = this.pending ?? []
    this.pending = undefined
    this.#write(missed)
    this.#write(pending)
  }

  #write (changes: FeedChange[]): void {
    const fresh = changes.filter((c) => comparePositions(c.position, this.position) > 0)
    if (fresh.length === 0 || !this.reply.sse.isConnected) return
    this.position = this.sentUpTo = fresh.at(-1)!.position
    this.reply.raw.write(fresh.map((c) => c.frame).join(''))
    if (this.reply.raw.writableLength > MAX_BUFFERED_BYTES) this.stop()
  }

  heartbeat (): void {
    if (!this.reply.sse.isConnected) return
    // The client reconnects by itself (`retry:`), maybe onto a replica added since.
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

  closed (): void {
    if (this.#ended) return
    this.#ended = true
    this.feed?.leave(this)
    this.streams.delete(this)
  }
}

export async function streamRunsFeed ({ join, options, streams, clock }: FeedDeps, { reply, filters, lastEventId, issue }: FeedSession): Promise<void> {
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
