import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorsFor, ref, response } from '../../schemas/common.js'
import {
  RunWorkflowBodySchema, RunWorkflowHeadersSchema, StartWorkflowBodySchema, StartWorkflowHeadersSchema, UpdateResultSchema, WorkflowResultSchema, WorkflowStartedSchema,
  type UpdateResult, type WorkflowResult, type WorkflowStarted
} from '../../schemas/workflow.js'
import { clientGone } from '../../lib/abort.js'
import { preferredWait } from '../../lib/http/prefer.js'
import { access, starterOf } from '../../plugins/app/access/route-access.js'

/** The document's reference to a schema's component (a discriminator's mapping names components). */
const component = (schema: { $id?: string }) => `#/components/schemas/${String(schema.$id)}`

/** The `Idempotency-Key` header as a key (docs/idempotency.md): the draft's quoted Structured Field string and the bare form are one key. */
const idempotencyKeyOf = (header: string | undefined) => header?.startsWith('"') ? header.slice(1, -1) : header

/** `Retry-After` of a 202: when a status read is worth trying; never longer than the client chose to wait. */
const RETRY_AFTER_MAX_SECONDS = 5

/** The response headers of a start with `Prefer: wait` (declared in the OpenAPI document). */
const preferenceApplied = {
  'preference-applied': { type: 'string', description: 'With `Prefer: wait` only: `wait=<seconds>`, the wait applied (the asked one, capped by SERVICE_RUN_MAX_TIMEOUT_MS)' }
} as const
const stillOpenHeaders = {
  location: { type: 'string', description: 'The run\'s status resource: `/workflow/{id}/runs/{runId}/status`' },
  'retry-after': { type: 'integer', minimum: 1, description: 'Seconds until a status read is worth trying' },
  ...preferenceApplied
} as const

const start: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/workflow/run', {
    config: access('run', 'start'),
    schema: {
      tags: ['workflows'],
      operationId: 'runWorkflow',
      summary: 'Start a workflow and wait for its result',
      description: 'Answers the WorkflowResult once the run closes: 200 for every final status, including `failed` ' +
        '(with error and errorDetails). A run that continues as new is followed: the answer is the result of the last ' +
        'run of the chain (its runId and input), the same as GET /workflow/{id}/result afterwards. ' +
        '408 WorkflowExecutionTimedOutError when `timeout` elapses first: the workflow keeps running and its result ' +
        'can be read later. Errors before the start as for POST /workflow/start. With `Idempotency-Key`, a retry waits for the ' +
        'run the key started (and answers its result once closed) instead of starting another; 422 when the body differs. ' +
        'An input or output kept by reference and larger than SERVICE_PAYLOAD_INLINE_MAX_BYTES comes as `inputRef`/`outputRef`, a presigned download. ' +
        'With `update` (update-with-start): an open run of the workflow id receives the update instead of a new run starting, and the ' +
        'answer is the result of the run that took it; a rejected or failed update is a 422 naming the run.',
      headers: ref(RunWorkflowHeadersSchema),
      body: ref(RunWorkflowBodySchema),
      response: { 200: ref(WorkflowResultSchema), ...errorsFor(400, 401, 404, 408, 409, 413, 415, 422, 500, 502, 503) }
    }
  }, async (request, reply) => {
    const signal = clientGone(reply)
    try {
      return await fastify.runStarter.runWorkflow(request.body, signal, { idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']), ...starterOf(request) })
    } catch (err) {
      if (!signal.aborted) throw err
      // Nobody is left to answer; the workflow is not touched.
      request.log.info({ workflowId: request.body.workflowId }, 'client disconnected: stopped waiting for the run')
      return reply.hijack()
    }
  })

  fastify.post('/workflow/start', {
    config: access('run', 'start'),
    schema: {
      tags: ['workflows'],
      operationId: 'startWorkflow',
      summary: 'Start a workflow and return its ids at once (or its result, with Prefer: wait)',
      description: 'Validates `input` against the catalog\'s inputSchema (400), resolves aliases, and starts the run on the ' +
        'catalog\'s task queue; an input too large for a request body is uploaded first (POST /payloads) and named by `inputRef`. ' +
        '404: the workflow is not in the catalog; PayloadNotFoundError: `inputRef` names no (or an expired) upload. 409 WorkflowAlreadyStartedError: a run with this ' +
        'workflowId is still open (the body names its runId). A closed run\'s id may be reused. 503: the catalog is not published. ' +
        'With `Idempotency-Key`, a retry answers the run the key started (422 when the body differs). With `Prefer: wait=<seconds>`: ' +
        '200 with the WorkflowResult when the run closed within that time (`Preference-Applied: wait=<seconds>`), otherwise 202 ' +
        'with the ids, `Location` (the run\'s status) and `Retry-After`. With `update` (update-with-start): an open run of the ' +
        'workflow id receives the update instead of a new run starting; the answer is the UpdateResult (422 UpdateRejectedError ' +
        'or UpdateFailedError naming the run otherwise; `Prefer: wait` does not apply; the key needs the `interact` scope too).',
      headers: ref(StartWorkflowHeadersSchema),
      body: ref(StartWorkflowBodySchema),
      response: {
        200: Type.Unsafe<WorkflowStarted | WorkflowResult | UpdateResult>({
          oneOf: [ref(WorkflowStartedSchema), ref(WorkflowResultSchema), ref(UpdateResultSchema)],
          // Every member carries `kind`: a generated client builds the one it names, not the first that parses.
          discriminator: { propertyName: 'kind', mapping: { started: component(WorkflowStartedSchema), result: component(WorkflowResultSchema), update: component(UpdateResultSchema) } },
          description: '`kind` says which. WorkflowStarted (`started`): the run was started (no `Prefer: wait`). WorkflowResult (`result`): ' +
            '`Prefer: wait` was sent and the run closed in time. UpdateResult (`update`): the body had `update`, and the run (started now, or the open one) ran it',
          headers: preferenceApplied
        }),
        202: response(WorkflowStartedSchema, '`Prefer: wait` was sent and the run is still open: `Location` names its status resource, `Retry-After` when to look', stillOpenHeaders),
        ...errorsFor(400, 401, 404, 409, 413, 415, 422, 500, 502, 503)
      }
    }
  }, async (request, reply) => {
    if (request.body.taskQueue !== undefined && request.body.catalog === undefined) request.log.warn('taskQueue is deprecated: send catalog')
    const signal = clientGone(reply)
    const idempotencyKey = idempotencyKeyOf(request.headers['idempotency-key'])
    const { update } = request.body
    if (update !== undefined) {
      const updated = await fastify.runStarter.updateWithStart({ ...request.body, update }, { signal, idempotencyKey, ...starterOf(request) })
      return { kind: 'update' as const, workflowId: updated.run.workflowId, runId: updated.run.runId, updateId: updated.updateId, result: updated.result }
    }
    const started = await fastify.runStarter.startWorkflow(request.body, { signal, idempotencyKey, ...starterOf(request) })
    const ids = { kind: 'started' as const, workflowId: started.workflowId, runId: started.runId }
    const wait = preferredWait(request.headers.prefer)
    if (wait === undefined) return ids
    const waited = Math.min(wait, Math.floor(fastify.config.SERVICE_RUN_MAX_TIMEOUT_MS / 1000))
    reply.header('preference-applied', `wait=${waited}`).header('vary', 'Prefer')
    const result = await fastify.runStarter.waitForResult(started, { signal, deadline: Date.now() + waited * 1000 })
    if (!('open' in result)) return result
    const location = `/workflow/${encodeURIComponent(started.workflowId)}/runs/${started.runId}/status`
    return reply.code(202).header('location', location).header('retry-after', String(Math.max(1, Math.min(waited, RETRY_AFTER_MAX_SECONDS)))).send(ids)
  })
}

export default start
