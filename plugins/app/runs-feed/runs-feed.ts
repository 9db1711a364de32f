/**
 * The runs change feed service: one shared visibility poll per set of filters (feed.ts), for every
 * client of GET /workflow/runs/stream with those filters (stream.ts).
 */
import type { FastifyBaseLogger } from 'fastify'
import type { StreamRegistry } from '../../../lib/http/sse.js'
import { SharedPolls } from '../../../lib/shared-poll.js'
import { RunsFeed, type FeedOptions, type FeedSink, type Joined } from './feed.js'
import { timePosition, type Position } from './position.js'
import { visibilityChanges, type SourceDeps } from './source.js'
import { streamRunsFeed, type FeedSession } from './stream.js'

export interface RunsFeedDeps extends SourceDeps {
  /** The open SSE streams (plugins/external/sse.ts). */
  streams: StreamRegistry
  options: FeedOptions
  log: FastifyBaseLogger
}

export function createRunsFeed ({ engine, statusOf, streams, options, log }: RunsFeedDeps) {
  const source = visibilityChanges({ engine, statusOf })
  const feeds = new SharedPolls<RunsFeed>()
  /** Subscribes `sink` to the feed of `query` (started if none is live); `resume` is where the client stands (absent: now). */
  const join = (query: string, resume: Position | undefined, sink: FeedSink): Joined => {
    const feed = feeds.of(query, (onEnd) => new RunsFeed(query, source, options, log, onEnd))
    feed.subscribers.add(sink)
    const live = timePosition(feed.frontier)
    if (resume === undefined) return { feed, position: live, expired: false }
    if (resume.ms < Date.now() - options.resumeMs) return { feed, position: live, expired: true }
    return { feed, position: resume, expired: false }
  }
  return {
    /** Live feeds (one per distinct filter set with a subscriber). */
    get size () { return feeds.size },
    /** One SSE session on the feed of the request's filters. */
    stream: async (session: FeedSession) => { await streamRunsFeed({ join, options, streams }, session) },
    /** Stops every feed (after the SSE plugin's preClose has ended the streams). */
    close: () => { for (const feed of feeds.values()) feed.close() }
  }
}

export type RunsFeedService = ReturnType<typeof createRunsFeed>
