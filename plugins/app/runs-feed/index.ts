/**
 * The runs change feed (lib/runs-feed/): one shared visibility poll per set of filters, for every
 * client of GET /workflow/runs/stream with those filters. `fastify.runsFeeds.metrics` counts the
 * engine calls, for tests and the metrics endpoint.
 */
import fp from 'fastify-plugin'
import { RunsFeeds } from '../../../lib/runs-feed/feed.js'
import { visibilityChanges } from '../../../lib/runs-feed/source.js'

declare module 'fastify' {
  interface FastifyInstance {
    runsFeeds: RunsFeeds
  }
}

export default fp(async (fastify) => {
  const { SERVICE_RUNS_FEED_POLL_MS, SERVICE_RUNS_FEED_DELAY_MS, SERVICE_RUNS_FEED_RESUME_MS, SERVICE_RUNS_FEED_SESSION_MS } = fastify.config
  const feeds = new RunsFeeds(visibilityChanges(fastify), {
    pollMs: SERVICE_RUNS_FEED_POLL_MS, delayMs: SERVICE_RUNS_FEED_DELAY_MS, resumeMs: SERVICE_RUNS_FEED_RESUME_MS, sessionMs: SERVICE_RUNS_FEED_SESSION_MS
  }, fastify.log)
  fastify.decorate('runsFeeds', feeds)
  // After the SSE plugin's preClose has ended the streams; this stops any feed left.
  fastify.addHook('onClose', async () => { feeds.closeAll() })
}, { name: 'runs-feed', dependencies: ['engine'] })
