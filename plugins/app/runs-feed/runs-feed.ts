/**
 * The runs change feed service: one shared visibility poll per set of filters (feed.ts), for every
 * client of GET /workflow/runs/stream with those filters (stream.ts).
 */
import type { FastifyBaseLogger } from 'fastify'
import type { StreamRegistry } from '../../../lib/http/sse.js'
import { RunsFeeds, type FeedOptions } from './feed.js'
import { visibilityChanges, type SourceDeps } from './source.js'
import { streamRunsFeed, type FeedSession } from './stream.js'

export interface RunsFeedDeps extends SourceDeps {
  /** The open SSE streams (plugins/external/sse.ts). */
  streams: StreamRegistry
  options: FeedOptions
  log: FastifyBaseLogger
}

export function createRunsFeed ({ engine, statusOf, streams, options, log }: RunsFeedDeps) {
  const feeds = new RunsFeeds(visibilityChanges({ engine, statusOf }), options, log)
  return {
    /** Live feeds (one per distinct filter set with a subscriber). */
    get size () { return feeds.size },
    /** One SSE session on the feed of the request's filters. */
    stream: async (session: FeedSession) => { await streamRunsFeed({ feeds, streams }, session) },
    /** Stops every feed (after the SSE plugin's preClose has ended the streams). */
    close: () => { feeds.closeAll() }
  }
}

export type RunsFeedService = ReturnType<typeof createRunsFeed>
