/**
 * GET /workflow/{id}/history and /workflow/{id}/runs/{rid}/history: one page of a run's events.
 * The page token carries the run id, so the unpinned form keeps paging the run it started on
 * even when a new run becomes current in between.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { status as GrpcStatus } from '@grpc/grpc-js'
import { isGrpcServiceError } from '@temporalio/client'
import { validationError } from '../../lib/api-error.js'
import { decodePageToken, encodePageToken } from '../../lib/history/cursor.js'
import { eventsToJson } from '../../lib/history/events.js'
import { describeRun } from '../../lib/history/workflow-info.js'
import { errorsFor, ref, RunParamsSchema, WorkflowParamsSchema } from '../../schemas/common.js'
import { HistoryPageSchema, HistoryQuerySchema, type HistoryPage } from '../../schemas/history.js'

const badToken = (message: string) => validationError([{ path: '/pageToken', in: 'querystring', message }])

/** The engine rejects a page token that does not fit the run (INVALID_ARGUMENT): the client's fault. */
function isInvalidArgument (err: unknown): boolean {
  const cause = err instanceof Error && 'cause' in err ? err.cause : undefined
  return [err, cause].some((e) => isGrpcServiceError(e) && e.code === GrpcStatus.INVALID_ARGUMENT)
}

const history: FastifyPluginAsyncTypebox = async (fastify) => {
  interface PageRequest { id: string, rid?: string, pageSize?: number, pageToken?: string, includePayloads?: boolean }

  async function page ({ id, rid, pageSize, pageToken, includePayloads }: PageRequest): Promise<HistoryPage> {
    const token = pageToken === undefined ? undefined : decodePageToken(pageToken)
    if (pageToken !== undefined && !token) throw badToken('Not a page token of this API')
    if (token && rid && token.runId !== rid.toLowerCase()) throw badToken('The page token belongs to another run')
    const workflow = await describeRun(fastify, id, rid ?? token?.runId)
    const { runId } = workflow
    const result = await fastify.historyHubs.read({ workflowId: id, runId, pageToken: token?.engineToken, wait: false, pageSize: pageSize ?? 100 })
      .catch((err: unknown) => { throw token && isInvalidArgument(err) ? badToken('The engine rejected the page token') : err })
    const next = result.nextPageToken?.length ? encodePageToken({ runId, engineToken: result.nextPageToken }) : null
    return { workflow, events: eventsToJson(result.events, includePayloads ?? false), nextPageToken: next }
  }

  const common = {
    tags: ['history'],
    querystring: ref(HistoryQuerySchema),
    response: { 200: ref(HistoryPageSchema), ...errorsFor(400, 401, 404, 500, 503) }
  }

  fastify.get('/workflow/:id/history', {
    schema: {
      ...common,
      operationId: 'getHistory',
      summary: 'One page of the history of the current run (the page token then pins that run)',
      params: ref(WorkflowParamsSchema)
    }
  }, async (request) => await page({ ...request.params, ...request.query }))

  fastify.get('/workflow/:id/runs/:rid/history', {
    schema: {
      ...common,
      operationId: 'getRunHistory',
      summary: 'One page of the history of one run',
      params: ref(RunParamsSchema)
    }
  }, async (request) => await page({ ...request.params, ...request.query }))
}

export default history
