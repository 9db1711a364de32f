/**
 * What the SSE streams (the history stream, plugins/app/history/stream.ts; the runs feed,
 * plugins/app/runs-feed/stream.ts) share: the reconnect hint, the client's Last-Event-ID, how an
 * open stream meets the registry of plugins/external/sse/index.ts, and making a long-lived stream's strings small.
 */
import type { FastifyReply } from 'fastify'
import { symbols as pinoSymbols } from 'pino'
import type { Issue } from '../../../lib/api-error.js'

/** Reconnect delay hinted to EventSource: short, a resume costs one describe and a buffer replay (or one catch-up read). */
export const RETRY_MS = 2000

/** The client's Last-Event-ID: the header wins over ?lastEventId= (an EventSource resuming a URL that carries a stale one). */
export function lastEventIdOf (header: string | undefined, query: string | undefined): { lastEventId?: string, issue: Omit<Issue, 'message'> } {
  return header !== undefined && header.trim() !== ''
    ? { lastEventId: header.trim(), issue: { path: '/last-event-id', in: 'headers' } }
    : { lastEventId: query, issue: { path: '/lastEventId', in: 'querystring' } }
}

/** An open stream as the registry of plugins/external/sse/index.ts sees it. */
export interface OpenStream {
  /** Ends the stream now (shutdown). */
  stop: () => void
  /** Writes a heartbeat comment. */
  heartbeat: () => void
}

/** Where open streams register so shutdown can end them and one timer can keep them all alive (plugins/external/sse/index.ts). */
export interface StreamRegistry {
  add: (stream: OpenStream) => void
  delete: (stream: OpenStream) => void
}

/**
 * Strings a stream keeps for its whole life, built as ropes of concatenated pieces; reading one
 * character makes V8 flatten a rope into a single string, and the pieces go:
 * - the response head Node wrote (`ServerResponse#_header`, internal): about 25 pieces, some 800
 *   bytes per stream, 250 once flat;
 * - the request logger's bindings (pino's `chindings`, built by appending `,"key":value` per
 *   binding): the request id and the run ids (plugins/http/run-log.ts), some 250 bytes saved.
 * Without those properties (another Node or pino) this does nothing.
 */
export function compactForLife (reply: FastifyReply): void {
  const head = (reply.raw as unknown as { _header?: unknown })._header
  const bindings = (reply.log as unknown as Record<symbol, unknown>)[pinoSymbols.chindingsSym]
  for (const rope of [head, bindings]) if (typeof rope === 'string') rope.charCodeAt(0)
}
