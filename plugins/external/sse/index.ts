/**
 * Server-Sent Events (@fastify/sse): one heartbeat timer for all streams, a JSON 406, shutdown that
 * ends open streams, and caps on them: a stream counts once against the rate limit, then holds
 * memory and engine polls as long as it is open.
 */
import fp from 'fastify-plugin'
import { fastifySSE } from '@fastify/sse'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, STREAM_RETRY_AFTER_SECONDS } from '../../../lib/api-error.js'
import { addRouteHook } from '../../../lib/http/route-hooks.js'
import type { OpenStream, StreamRegistry } from './streams.js'

declare module 'fastify' {
  interface FastifyInstance {
    openStreams: OpenStreams
    streamSlots: StreamSlots
  }
}

/** Caps on open streams per replica (docs/settings.md); 0 = no cap. */
export interface StreamCaps {
  total: number
  perKey: number
}

/** A slot is taken before the stream's first byte, so a refusal is a JSON error, and given back when its connection closes. */
export class StreamSlots {
  #open = 0
  readonly #perKey = new Map<string, number>()
  readonly refused = { key: 0, total: 0 }

  constructor (private readonly caps: StreamCaps = { total: 0, perKey: 0 }) {}

  get open (): number { return this.#open }

  take (key: string | undefined): () => void {
    const { total, perKey } = this.caps
    const ofKey = key === undefined ? 0 : this.#perKey.get(key) ?? 0
    if (key !== undefined && perKey > 0 && ofKey >= perKey) {
      this.refused.key++
      throw new ApiError(429, 'RateLimitedError', `Key ${key} has ${ofKey} streams open, the most one key may hold on this replica (SERVICE_STREAMS_MAX_PER_KEY); close one or retry later`,
        { headers: { 'retry-after': STREAM_RETRY_AFTER_SECONDS } })
    }
    if (total > 0 && this.#open >= total) {
      this.refused.total++
      throw new ApiError(503, 'StreamCapacityError', `This replica holds ${this.#open} open streams, its most (SERVICE_STREAMS_MAX); retry later, maybe on another replica`,
        { headers: { 'retry-after': STREAM_RETRY_AFTER_SECONDS } })
    }
    this.#open++
    if (key !== undefined) this.#perKey.set(key, ofKey + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      this.#open--
      if (key === undefined) return
      const left = (this.#perKey.get(key) ?? 1) - 1
      if (left === 0) this.#perKey.delete(key)
      else this.#perKey.set(key, left)
    }
  }
}

/** One timer for every stream's heartbeat: one per stream, as the plugin would start, costs each idle stream a Timeout. */
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

export default fp(async (fastify, opts: { heartbeatMs: number, caps?: StreamCaps }) => {
  await fastify.register(fastifySSE, {
    heartbeatInterval: 0,
    // Strings are JSON the route serialized already, once for every client of a run.
    serializer: (data: unknown) => (typeof data === 'string' ? data : JSON.stringify(data))
  })
  const openStreams = new OpenStreams(opts.heartbeatMs)
  fastify.decorate('openStreams', openStreams)
  const slots = new StreamSlots(opts.caps)
  fastify.decorate('streamSlots', slots)
  fastify.metrics?.gauge('flowport_sse_streams_open', 'SSE streams (run histories and the runs feed) open now', () => slots.open)
  fastify.metrics?.counter('flowport_sse_streams_refused_total', 'SSE streams refused at a cap, by cap: key (SERVICE_STREAMS_MAX_PER_KEY, a 429) or total (SERVICE_STREAMS_MAX, a 503)',
    'cap', () => slots.refused)

  // Answer 406 in our error shape before the plugin's own (differently shaped) 406 can run.
  fastify.addHook('onRoute', (route) => {
    if (!route.sse) return
    addRouteHook(route, 'onRequest', async (request: FastifyRequest) => {
      if (!acceptsEventStream(request.headers.accept)) throw new ApiError(406, 'NotAcceptableError', 'This endpoint only produces text/event-stream')
    })
    // After auth (the key is known) and validation (a bad request is its 400, not a taken slot).
    addRouteHook(route, 'preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
      const release = slots.take(request.principal?.keyId)
      reply.raw.once('close', release)
    })
  })

  fastify.addHook('preClose', (done) => {
    fastify.openStreams.closeAll()
    done()
  })
}, { name: 'sse', dependencies: ['errors'] })
