/** Log lines about a run carry its ids, from the path or the response body, bound once per request. */
import fp from 'fastify-plugin'
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'

interface RunIds { workflowId?: string, runId?: string }

type Pino = FastifyBaseLogger & { setBindings: (bindings: RunIds) => void }

/** Which ids a request's logger has (a number, not an object: a stream keeps it for its whole life). */
const WORKFLOW_ID = 1
const RUN_ID = 2
const bound = new WeakMap<FastifyRequest, number>()

function bind (request: FastifyRequest, ids: RunIds): void {
  const known = bound.get(request) ?? 0
  const added: RunIds = {}
  if (ids.workflowId !== undefined && (known & WORKFLOW_ID) === 0) added.workflowId = ids.workflowId
  if (ids.runId !== undefined && (known & RUN_ID) === 0) added.runId = ids.runId
  if (added.workflowId === undefined && added.runId === undefined) return
  bound.set(request, known | (added.workflowId === undefined ? 0 : WORKFLOW_ID) | (added.runId === undefined ? 0 : RUN_ID))
  // The request's logger is its own pino child of the app's (Fastify makes one per request), so
  // its bindings are extended in place: no second logger per request (docs/performance.md).
  ;(request.log as Pino).setBindings(added)
}

export default fp(async (fastify) => {
  fastify.addHook('preHandler', (request, _reply, done) => {
    const params = request.params as { id?: string, rid?: string } | undefined
    if (typeof params?.id === 'string') bind(request, { workflowId: params.id, runId: params.rid })
    done()
  })
  fastify.addHook('preSerialization', (request, _reply, payload, done) => {
    const body = payload as RunIds | null
    if (typeof body === 'object' && body !== null && typeof body.workflowId === 'string') {
      bind(request, { workflowId: body.workflowId, runId: typeof body.runId === 'string' ? body.runId : undefined })
    }
    done(null, payload)
  })
}, { name: 'run-log' })
