/**
 * GET /workflow/{id}/trace-log and its pinned form: the execution trace (lib/trace-log.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { RunParamsSchema, WorkflowParamsSchema, errorsFor, ref } from '../../schemas/common.js'
import { TraceLogSchema } from '../../schemas/trace.js'
import { readTraceLog } from '../../lib/trace-log.js'
import { access } from '../../lib/http/access.js'

const description = 'The trace of a closed run, read from the bucket (SERVICE_TRACE_S3_BUCKET) or else SERVICE_TRACE_DIR. ' +
  'For an open run, the trace recorded so far (`partial: true`), assembled from the engine\'s history, with the status\'s `attention` ' +
  'when its workflow task keeps failing. ' +
  '404 WorkflowNotFoundError for an unknown run, TraceNotFoundError when tracing is off; 503 TraceStorageUnavailableError ' +
  'when the bucket does not answer.'

const traceLog: FastifyPluginAsyncTypebox = async (fastify) => {
  const response = { 200: ref(TraceLogSchema), ...errorsFor(400, 401, 404, 500, 503) }

  fastify.get('/workflow/:id/trace-log', {
    config: access('read', 'workflow'),
    schema: {
      tags: ['workflows'],
      operationId: 'getWorkflowTrace',
      summary: 'Execution trace of the latest run of a workflow id',
      description,
      params: ref(WorkflowParamsSchema),
      response
    }
  }, async (request) => await readTraceLog(fastify, { workflowId: request.params.id }))

  fastify.get('/workflow/:id/runs/:rid/trace-log', {
    config: access('read', 'workflow'),
    schema: {
      tags: ['workflows'],
      operationId: 'getRunTrace',
      summary: 'Execution trace of one run',
      description,
      params: ref(RunParamsSchema),
      response
    }
  }, async (request) => await readTraceLog(fastify, { workflowId: request.params.id, runId: request.params.rid }))
}

export default traceLog
