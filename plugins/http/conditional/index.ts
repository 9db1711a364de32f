/**
 * Conditional requests (docs/conditional-requests.md): `ETag` and `If-None-Match` → 304 for every
 * route that declares `config.etag`. The tag is computed from the bytes about to be sent, so it
 * changes whenever the representation does; `etag: 'run'` prefixes it with the body's `runId`, so a
 * status ETag also names its run for `If-Match`. The hooks are the routes' own: a route without
 * `etag` runs none of them.
 */
import fp from 'fastify-plugin'
import type { FastifyReply, FastifyRequest, onSendHookHandler, preSerializationHookHandler, RouteOptions } from 'fastify'
import { etagOf, noneMatchHits } from './entity-tags.js'
import { addRouteHook } from '../../../lib/http/route-hooks.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The 200 carries an ETag and `If-None-Match` may answer 304 (`'run'`: the tag names the body's run). */
    etag?: true | 'run'
  }
}

/** The `runId` of a body about to be serialized, taken before it becomes bytes (never parsed back). */
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
  if (!noneMatchHits(request.headers['if-none-match'], etag)) return done(null, payload)
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
