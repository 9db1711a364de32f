/**
 * `ETag` and `If-None-Match` → 304 for every route that declares `config.etag` (lib/http/conditional.ts):
 * the tag is computed from the bytes about to be sent, so it changes whenever anything in the
 * representation changes and never otherwise. `etag: 'run'` prefixes it with the body's `runId`, so
 * a status ETag also names its run for `If-Match`.
 */
import fp from 'fastify-plugin'
import { etagOf, noneMatchHits } from '../lib/http/conditional.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The 200 carries an ETag and `If-None-Match` may answer 304 (`'run'`: the tag names the body's run). */
    etag?: true | 'run'
  }
}

export default fp(async (fastify) => {
  fastify.addHook('onSend', async (request, reply, payload) => {
    const kind = request.routeOptions.config.etag
    if (kind === undefined || reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload
    const runId = kind === 'run' ? (JSON.parse(payload.toString()) as { runId?: string }).runId : undefined
    const etag = etagOf(payload, runId)
    reply.header('etag', etag)
    if (!noneMatchHits(request.headers['if-none-match'], etag)) return payload
    reply.code(304)
    return ''
  })
}, { name: 'conditional' })
