/**
 * GET /workflow/runs/stream: the runs change feed as Server-Sent Events (plugins/app/runs-feed/). The
 * filters and the resume position are checked before the first SSE byte (JSON errors); clients
 * with the same filters share one poll of the engine's visibility store.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { clientGone } from '../../lib/abort.js'
import { access } from '../../lib/http/access.js'
import { lastEventIdOf } from '../../lib/http/sse.js'
import { ref } from '../../schemas/common.js'
import { RunsFeedHeadersSchema, RunsFeedQuerySchema, runsFeedResponses } from '../../schemas/runs-feed.js'

const runsStream: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/workflow/runs/stream', {
    sse: 'only',
    config: access('read', 'runs'),
    schema: {
      tags: ['workflows'],
      operationId: 'streamRuns',
      summary: 'Runs that start or close, live, as Server-Sent Events, with the filters of GET /workflow/runs',
      description: 'A `run` frame for every run that starts or closes, in the order of its start or close time, each with an `id:`. ' +
        'Reconnect with `Last-Event-ID` to get exactly the changes you missed, from any replica. The engine\'s visibility store ' +
        'lists runs a little late, so a change is sent once it is SERVICE_RUNS_FEED_DELAY_MS old (2 s by default); a ' +
        'Last-Event-ID older than SERVICE_RUNS_FEED_RESUME_MS (1 h) gets an `expired` frame, then the changes from now on. ' +
        'Every client with the same filters shares one poll of the engine (every SERVICE_RUNS_FEED_POLL_MS). The `status` ' +
        'filter matches the status a run has when the feed reads it.',
      querystring: ref(RunsFeedQuerySchema),
      headers: ref(RunsFeedHeadersSchema),
      response: runsFeedResponses
    }
  }, async (request, reply) => {
    const { lastEventId, ...filters } = request.query
    await fastify.runsFeed.stream({ reply, filters, ...lastEventIdOf(request.headers['last-event-id'], lastEventId), signal: clientGone(reply) })
  })
}

export default runsStream
