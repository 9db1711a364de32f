import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../../schemas/common.js'
import { TraceLogSchema } from '../../schemas/trace.js'
import { access } from '../../plugins/app/access/route-access.js'
import { latestAndPinned, runOf } from '../latest-and-pinned.js'

const description = 'The trace of a closed run, read from the bucket (SERVICE_TRACE_S3_BUCKET) or else SERVICE_TRACE_DIR. ' +
  'For an open run, the trace recorded so far (`partial: true`), assembled from the engine\'s history, with the status\'s `attention` ' +
  'when its workflow task keeps failing. ' +
  '404 WorkflowNotFoundError for an unknown run, TraceNotFoundError when tracing is off; 503 TraceStorageUnavailableError ' +
  'when the bucket does not answer.'

const traceLog: FastifyPluginAsyncTypebox = async (fastify) => {
  latestAndPinned(fastify, '/trace-log', {
    method: 'GET',
    config: access('read', 'workflow'),
    description,
    latest: { operationId: 'getWorkflowTrace', summary: 'Execution trace of the latest run of a workflow id' },
    pinned: { operationId: 'getRunTrace', summary: 'Execution trace of one run' },
    schema: { response: { 200: ref(TraceLogSchema), ...errorsFor(400, 401, 404, 500, 502, 503) } }
  }, async (request) => await fastify.runs.readTraceLog(runOf(request)))
}

export default traceLog
