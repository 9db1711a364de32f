/**
 * The runs change feed service: one shared visibility poll per set of filters (feed.ts), for every
 * client of GET /workflow/runs/stream with those filters (stream.ts). `metrics` counts the engine
 * calls, for tests and the metrics endpoint.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { StreamRegistry } from '../../../lib/http/sse.js'
import { RunsFeeds, type FeedMetrics, type FeedOptions } from './feed.js'
import { visibilityChanges, type SourceDeps } from './source.js'
import { streamRunsFeed, type FeedSession } from './stream.js'

export interface RunsFeedDeps extends SourceDeps {
  /** The open SSE streams (plugins/external/sse.ts). */
  streams: StreamRegistry
  options: FeedOptions
  log: FastifyBaseLogger
}

export interface RunsFeedService {
  /** Live feeds (one per distinct filter set with a subscriber). */
  readonly size: number
  readonly metrics: FeedMetrics
  /** One SSE session on the feed of the request's filters. */
  stream: (session: FeedSession) => Promise<void>
  /** Stops every feed (after the SSE plugin's preClose has ended the streams). */
  close: () => void
}

export function createRunsFeed ({ engine, statusOf, streams, options, log }: RunsFeedDeps): RunsFeedService {
  const feeds = new RunsFeeds(visibilityChanges({ engine, statusOf }), options, log)
  return {
    get size () { return feeds.size },
    metrics: feeds.metrics,
    stream: async (session) => { await streamRunsFeed({ feeds, streams }, session) },
    close: () => { feeds.closeAll() }
  }
}
