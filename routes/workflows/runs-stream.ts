/**
 * GET /workflow/runs/stream: the runs change feed as Server-Sent Events (lib/runs-feed/). The
 * filters and the resume position are checked before the first SSE byte (JSON errors); clients
 * with the same filters share one poll of the engine's visibility store.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { validationError } from '../../lib/api-error.js'
import { clientGone } from '../../lib/abort.js'
import { visibilityQuery } from '../../plugins/app/runs/list-runs.js'
import { decodePosition, type Position } from '../../lib/runs-feed/position.js'
import { streamRunsFeed } from '../../lib/runs-feed/stream.js'
import { access } from '../../lib/http/access.js'
import { ref } from '../../schemas/common.js'
import { RunsFeedHeadersSchema, RunsFeedQuerySchema, runsFeedResponses } from '../../schemas/runs-feed.js'

/** The Last-Event-ID header wins over ?lastEventId= (an EventSource resuming a URL that carries a stale one). */
function resumeOf (header: string | undefined, query: string | undefined): Position | undefined {
  const fromHeader = header !== undefined && header.trim() !== ''
  const value = fromHeader ? header.trim() : query
  if (value === undefined) return undefined
  const position = decodePosition(value)
  const issue = { path: fromHeader ? '/last-event-id' : '/lastEventId', in: fromHeader ? 'headers' : 'querystring' }
  if (!position) throw validationError([{ ...issue, message: 'Not an event id of this feed' }])
  // Ids name engine times already read: one from the future was not issued by any replica.
  if (position.ms > Date.now()) throw validationError([{ ...issue, message: 'The event id is ahead of the feed (a time still to come)' }])
  return position
}

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
    const resume = resumeOf(request.headers['last-event-id'], lastEventId)
    await streamRunsFeed({
      reply,
      feeds: fastify.runsFeeds,
      streams: fastify.openStreams,
      query: visibilityQuery(filters),
      resume,
      signal: clientGone(reply)
    })
  })
}

export default runsStream
