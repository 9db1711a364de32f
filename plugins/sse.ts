/**
 * Server-Sent Events (@fastify/sse) for the history stream routes: 15 s heartbeats (proxies drop
 * quieter connections; the plugin's default is 30 s), a JSON 406 for clients that refuse
 * `text/event-stream`, and a registry of open streams so shutdown ends them instead of waiting.
 * @see https://github.com/fastify/sse
 */
import fp from 'fastify-plugin'
import { fastifySSE } from '@fastify/sse'
import type { FastifyRequest } from 'fastify'
import { ApiError } from '../lib/api-error.js'

export const HEARTBEAT_MS = 15_000

declare module 'fastify' {
  interface FastifyInstance {
    openStreams: OpenStreams
  }
}

export class OpenStreams {
  readonly #streams = new Set<{ stop: () => void, ended: Promise<void> }>()
  #closing = false

  get size (): number { return this.#streams.size }

  /** Runs a stream's body; `stop` must make it return promptly (shutdown calls it). */
  async run (stop: () => void, body: () => Promise<void>): Promise<void> {
    const entry = { stop, ended: body() }
    this.#streams.add(entry)
    if (this.#closing) stop()
    try {
      await entry.ended
    } finally {
      this.#streams.delete(entry)
    }
  }

  async closeAll (): Promise<void> {
    this.#closing = true
    const open = [...this.#streams]
    for (const stream of open) stream.stop()
    await Promise.allSettled(open.map((s) => s.ended))
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

async function requireEventStream (request: FastifyRequest): Promise<void> {
  if (!acceptsEventStream(request.headers.accept)) {
    throw new ApiError(406, 'NotAcceptableError', 'This endpoint only produces text/event-stream')
  }
}

export default fp(async (fastify, opts: { heartbeatMs?: number }) => {
  await fastify.register(fastifySSE, {
    heartbeatInterval: opts.heartbeatMs ?? HEARTBEAT_MS,
    // Strings are JSON the route serialized already, once for every client of a run.
    serializer: (data: unknown) => (typeof data === 'string' ? data : JSON.stringify(data))
  })
  fastify.decorate('openStreams', new OpenStreams())

  // Answer 406 in our error shape before the plugin's own (differently shaped) 406 can run.
  fastify.addHook('onRoute', (route) => {
    if (!route.sse) return
    const existing = route.onRequest ? [route.onRequest].flat() : []
    route.onRequest = [...existing, requireEventStream]
  })

  fastify.addHook('preClose', async () => { await fastify.openStreams.closeAll() })
}, { name: 'sse', dependencies: ['errors'] })
