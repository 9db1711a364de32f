import type { FastifyReply } from 'fastify'
import { symbols as pinoSymbols } from 'pino'
import type { Issue } from '../../../lib/api-error.js'

/** Short: a resume costs one describe and a buffer replay. */
export const RETRY_MS = 2000

/** The header wins over ?lastEventId= (an EventSource resuming a URL that carries a stale one). */
export function lastEventIdOf (header: string | undefined, query: string | undefined): { lastEventId?: string, issue: Omit<Issue, 'message'> } {
  return header !== undefined && header.trim() !== ''
    ? { lastEventId: header.trim(), issue: { path: '/last-event-id', in: 'headers' } }
    : { lastEventId: query, issue: { path: '/lastEventId', in: 'querystring' } }
}

export interface OpenStream {
  stop: () => void
  heartbeat: () => void
}

export interface StreamRegistry {
  add: (stream: OpenStream) => void
  delete: (stream: OpenStream) => void
}

/**
 * Flattens the ropes a stream keeps for life (reading one character does): the response head, about
 * 800 bytes to 250, and the logger's bindings, some 250 bytes saved (docs/performance.md).
 */
export function compactForLife (reply: FastifyReply): void {
  const head = (reply.raw as unknown as { _header?: unknown })._header
  const bindings = (reply.log as unknown as Record<symbol, unknown>)[pinoSymbols.chindingsSym]
  for (const rope of [head, bindings]) if (typeof rope === 'string') rope.charCodeAt(0)
}
