/**
 * The runs change feed concept (runs-feed.ts): `fastify.runsFeed`.
 */
import fp from 'fastify-plugin'
import { createRunsFeed, type RunsFeedService } from './runs-feed.js'

declare module 'fastify' {
  interface FastifyInstance { runsFeed: RunsFeedService }
}

export default fp<{ localClock?: () => number }>(async (fastify, opts) => {
  const { SERVICE_RUNS_FEED_POLL_MS, SERVICE_RUNS_FEED_DELAY_MS, SERVICE_RUNS_FEED_RESUME_MS, SERVICE_RUNS_FEED_SESSION_MS, SERVICE_RUNS_FEED_MAX_FEEDS } = fastify.config
  const runsFeed = createRunsFeed({
    engine: fastify.engine,
    statusOf: fastify.runs.statusWithWorkers,
    streams: fastify.openStreams,
    options: { pollMs: SERVICE_RUNS_FEED_POLL_MS, delayMs: SERVICE_RUNS_FEED_DELAY_MS, resumeMs: SERVICE_RUNS_FEED_RESUME_MS, sessionMs: SERVICE_RUNS_FEED_SESSION_MS, maxFeeds: SERVICE_RUNS_FEED_MAX_FEEDS },
    log: fastify.log,
    ...(opts.localClock === undefined ? {} : { localClock: opts.localClock })
  })
  fastify.decorate('runsFeed', runsFeed)
  fastify.metrics?.gauge('flowport_runs_feeds_live', 'Runs feeds polling now: one per filter set with a client (one shared visibility query per poll each)',
    () => runsFeed.size)
  fastify.metrics?.counter('flowport_runs_feed_refused_total', 'Runs-feed streams refused because the replica already polls SERVICE_RUNS_FEED_MAX_FEEDS filter sets (a 503)',
    'cap', () => ({ feeds: runsFeed.refused }))
  // After the SSE plugin's preClose has ended the streams; this stops any feed left.
  fastify.addHook('onClose', async () => { runsFeed.close() })
}, { name: 'runs-feed', dependencies: ['metrics', 'engine', 'runs', 'sse'] })
