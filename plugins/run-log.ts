/**
 * Log lines about a run carry its ids next to the request id: a request whose path names a run
 * (`/workflow/:id[/runs/:rid]/…`) logs with `workflowId` (and `runId`) from its handler on; a
 * response that names a run (a start, a result, an error about a run) adds what was not bound yet
 * to the request's completion line. Ids are bound once per request, never twice.
 */
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest } from 'fastify'

interface RunIds { workflowId?: string, runId?: string }

const bound = new WeakMap<FastifyRequest, RunIds>()

function bind (request: FastifyRequest, reply: FastifyReply, ids: RunIds): void {
  const known = bound.get(request) ?? {}
  const added: RunIds = {}
  if (ids.workflowId !== undefined && known.workflowId === undefined) added.workflowId = ids.workflowId
  if (ids.runId !== undefined && known.runId === undefined) added.runId = ids.runId
  if (added.workflowId === undefined && added.runId === undefined) return
  bound.set(request, { ...known, ...added })
  request.log = request.log.child(added)
  reply.log = request.log
}

export default fp(async (fastify) => {
  fastify.addHook('preHandler', (request, reply, done) => {
    const params = request.params as { id?: string, rid?: string } | undefined
    if (typeof params?.id === 'string') bind(request, reply, { workflowId: params.id, runId: params.rid })
    done()
  })
  fastify.addHook('preSerialization', (request, reply, payload, done) => {
    const body = payload as RunIds | null
    if (typeof body === 'object' && body !== null && typeof body.workflowId === 'string') {
      bind(request, reply, { workflowId: body.workflowId, runId: typeof body.runId === 'string' ? body.runId : undefined })
    }
    done(null, payload)
  })
}, { name: 'run-log' })
