/** The run list and, with the same filters, its live change feed (plugins/app/runs-feed/): clients with the same filters share one poll. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { RunsQuerySchema, WorkflowRunsSchema } from '../../schemas/workflow.js'
import { RunsFeedHeadersSchema, RunsFeedQuerySchema, runsFeedResponses } from '../../schemas/runs-feed.js'
import { access } from '../../plugins/app/access/route-access.js'
import { lastEventIdOf } from '../../plugins/external/sse/streams.js'

const runs: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/workflow/runs', {
    config: access('read', 'runs'),
    schema: {
      tags: ['workflows'],
      operationId: 'listRuns',
      summary: 'List runs, newest first, with filters and cursor pagination',
      description: 'Every run is listed (child workflows and earlier runs of a continue-as-new chain too); internal ' +
        'catalog workflows never are. Pass `nextPageToken` as `pageToken` with the same filters for the next page; a ' +
        'token that is not one (or one of other filters) is a 400. Order: newest first as the engine\'s visibility ' +
        'store sorts: open runs first (latest start first), then closed runs by close time, latest first. The last page ' +
        'may be empty.',
      querystring: ref(RunsQuerySchema),
      response: { 200: ref(WorkflowRunsSchema), ...errorsFor(400, 401, 500, 502, 503) }
    }
  }, async (request) => await fastify.runs.listRuns(request.query))

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
        'Every client with the same filters shares one poll of the engine (every SERVICE_RUNS_FEED_POLL_MS); a replica polls at most ' +
        'SERVICE_RUNS_FEED_MAX_FEEDS filter sets, a new one past that is a 503 StreamCapacityError with `Retry-After`. Clients resuming ' +
        'from nearby positions share one read of what they missed. A connection ends after 75 % to 100 % of SERVICE_RUNS_FEED_SESSION_MS ' +
        '(at random, so clients that connected together come back spread out) and resumes by itself. The `status` ' +
        'filter matches the status a run has when the feed reads it.',
      querystring: ref(RunsFeedQuerySchema),
      headers: ref(RunsFeedHeadersSchema),
      response: runsFeedResponses
    }
  }, async (request, reply) => {
    const { lastEventId, ...filters } = request.query
    await fastify.runsFeed.stream({ reply, filters: await fastify.catalogs.typeFiltered(filters), ...lastEventIdOf(request.headers['last-event-id'], lastEventId) })
  })
}

export default runs
