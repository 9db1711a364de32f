/**
 * The runs change feed concept (runs-feed.ts): `fastify.runsFeed`.
 */
import fp from 'fastify-plugin'
import { createRunsFeed, type RunsFeedService } from './runs-feed.js'

declare module 'fastify' {
  interface FastifyInstance { runsFeed: RunsFeedService }
}

export default fp(async (fastify) => {
  const { SERVICE_RUNS_FEED_POLL_MS, SERVICE_RUNS_FEED_DELAY_MS, SERVICE_RUNS_FEED_RESUME_MS, SERVICE_RUNS_FEED_SESSION_MS } = fastify.config
  const runsFeed = createRunsFeed({
    engine: fastify.engine,
    statusOf: fastify.runs.statusWithWorkers,
    streams: fastify.openStreams,
    options: { pollMs: SERVICE_RUNS_FEED_POLL_MS, delayMs: SERVICE_RUNS_FEED_DELAY_MS, resumeMs: SERVICE_RUNS_FEED_RESUME_MS, sessionMs: SERVICE_RUNS_FEED_SESSION_MS },
    log: fastify.log
  })
  fastify.decorate('runsFeed', runsFeed)
  // After the SSE plugin's preClose has ended the streams; this stops any feed left.
  fastify.addHook('onClose', async () => { runsFeed.close() })
}, { name: 'runs-feed', dependencies: ['engine', 'runs', 'sse'] })
