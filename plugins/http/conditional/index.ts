/**
 * Conditional requests (docs/conditional-requests.md): the ETag is computed from the bytes about
 * to be sent; the hooks are those of the routes declaring `config.etag` only.
 */
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest, onSendHookHandler, preSerializationHookHandler, RouteOptions } from 'fastify'
import { etagOf, namesTag } from './entity-tags.js'
import { addRouteHook } from '../../../lib/http/route-hooks.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The 200 carries an ETag and `If-None-Match` may answer 304 (`'run'`: the tag names the body's run). */
    etag?: true | 'run'
  }
}

const runIds = new WeakMap<FastifyReply, string>()

const noteRunId: preSerializationHookHandler<unknown> = (_request, reply, payload, done) => {
  const runId = (payload as { runId?: unknown } | null)?.runId
  if (typeof runId === 'string') runIds.set(reply, runId)
  done(null, payload)
}

const tag = (named: boolean): onSendHookHandler<unknown> => (request: FastifyRequest, reply: FastifyReply, payload, done) => {
  if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return done(null, payload)
  const etag = etagOf(payload, named ? runIds.get(reply) : undefined)
  reply.header('etag', etag)
  if (!namesTag(request.headers['if-none-match'], etag)) return done(null, payload)
  reply.code(304)
  done(null, '')
}

export default fp(async (fastify) => {
  fastify.addHook('onRoute', (route: RouteOptions) => {
    const kind = route.config?.etag
    if (kind === undefined) return
    if (kind === 'run') addRouteHook(route, 'preSerialization', noteRunId)
    addRouteHook(route, 'onSend', tag(kind === 'run'))
  })
}, { name: 'conditional' })
