/**
 * Server-Sent Events (@fastify/sse) for the stream routes: heartbeats every SERVICE_SSE_HEARTBEAT_MS (15 s; proxies drop
 * quieter connections; the plugin's default is 30 s) from one timer for all streams, a JSON 406 for
 * clients that refuse `text/event-stream`, and a registry of open streams so shutdown ends them
 * instead of waiting.
 * @see https://github.com/fastify/sse
 */
import fp from 'fastify-plugin'
import { fastifySSE } from '@fastify/sse'
import type { FastifyRequest } from 'fastify'
import { ApiError } from '../../lib/api-error.js'
import { addRouteHook } from '../../lib/http/route-hooks.js'
import type { OpenStream, StreamRegistry } from '../../lib/http/sse.js'

declare module 'fastify' {
  interface FastifyInstance {
    openStreams: OpenStreams
  }
}

/**
 * The open streams: shutdown ends them, and one timer writes every stream's heartbeat (a timer per
 * stream, as the plugin would start, costs each idle stream its own Timeout and closures).
 */
export class OpenStreams implements StreamRegistry {
  readonly #streams = new Set<OpenStream>()
  #timer: NodeJS.Timeout | undefined
  #closing = false

  constructor (private readonly heartbeatMs: number) {}

  get size (): number { return this.#streams.size }

  add (stream: OpenStream): void {
    if (this.#closing) {
      stream.stop()
      return
    }
    this.#streams.add(stream)
    if (!this.#timer) {
      this.#timer = setInterval(() => { for (const s of this.#streams) s.heartbeat() }, this.heartbeatMs)
      this.#timer.unref()
    }
  }

  delete (stream: OpenStream): void {
    this.#streams.delete(stream)
    if (this.#streams.size === 0 && this.#timer) {
      clearInterval(this.#timer)
      this.#timer = undefined
    }
  }

  closeAll (): void {
    this.#closing = true
    for (const stream of [...this.#streams]) stream.stop()
  }
}

/** Whether an Accept header admits text/event-stream (missing = yes); the most specific range wins. */
export function acceptsEventStream (accept: string | undefined): boolean {
  if (!accept?.trim()) return true
  let best = 0
  let refused = false
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((p) => p.trim().toLowerCase())
    const specificity = type === 'text/event-stream' ? 3 : type === 'text/*' ? 2 : type === '*/*' ? 1 : 0
    if (specificity <= best) continue
    best = specificity
    refused = params.some((p) => /^q=0(\.0{0,3})?$/.test(p))
  }
  return best > 0 && !refused
}

export default fp(async (fastify, opts: { heartbeatMs: number }) => {
  await fastify.register(fastifySSE, {
    // Heartbeats come from the registry's one timer (streams register there).
    heartbeatInterval: 0,
    // Strings are JSON the route serialized already, once for every client of a run.
    serializer: (data: unknown) => (typeof data === 'string' ? data : JSON.stringify(data))
  })
  const openStreams = new OpenStreams(opts.heartbeatMs)
  fastify.decorate('openStreams', openStreams)
  // metrics registers first in the app (app.ts); a bare SSE plugin (its own test) has none.
  fastify.metrics?.gauge('flowport_sse_streams_open', 'SSE streams (run histories and the runs feed) open now', () => openStreams.size)

  // Answer 406 in our error shape before the plugin's own (differently shaped) 406 can run.
  fastify.addHook('onRoute', (route) => {
    if (!route.sse) return
    addRouteHook(route, 'onRequest', async (request: FastifyRequest) => {
      if (!acceptsEventStream(request.headers.accept)) throw new ApiError(406, 'NotAcceptableError', 'This endpoint only produces text/event-stream')
    })
  })

  fastify.addHook('preClose', (done) => {
    fastify.openStreams.closeAll()
    done()
  })
}, { name: 'sse', dependencies: ['errors'] })
