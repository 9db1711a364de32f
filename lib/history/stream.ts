/**
 * One SSE session on a run: `workflow`, then a `history` frame per batch of
 * events the client has not seen, then `done` (or `server_error`). Every `history` and `done`
 * frame carries a cursor id, so a reconnect resumes exactly after the last frame received.
 *
 * The route handler returns once the `workflow` frame is out (`reply.sse.keepAlive()`); from then
 * on the stream is driven by its subscription's callbacks, so an idle stream is a few small
 * objects rather than a suspended async call chain (docs/performance.md, "Memory per idle SSE stream").
 */
import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import { symbols as pinoSymbols } from 'pino'
import { fromEngineError } from '../../plugins/app/engine/errors.js'
import { encodeCursor } from './cursor.js'
import type { Batch } from './batch.js'
import type { HistoryHubs } from './hubs.js'
import type { HubEnd, Subscription, SubscriptionSink } from './subscription.js'
import type { RunRef } from '../../plugins/app/runs/run-history.js'
import type { HistoryStreamDone, HistoryStreamServerError, HistoryWorkflow } from '../../schemas/history.js'

/** Reconnect delay hinted to EventSource: short, a resume costs one describe and a buffer replay. */
export const RETRY_MS = 2000

const HEARTBEAT = ': heartbeat\n\n'

/** An open stream as the registry of plugins/external/sse.ts sees it. */
export interface OpenStream {
  /** Ends the stream now (shutdown). */
  stop: () => void
  /** Writes a heartbeat comment. */
  heartbeat: () => void
}

/** Where open streams register so shutdown can end them and one timer can keep them all alive (plugins/external/sse.ts). */
export interface StreamRegistry {
  add: (stream: OpenStream) => void
  delete: (stream: OpenStream) => void
}

export interface StreamSession {
  reply: FastifyReply
  hubs: HistoryHubs
  streams: StreamRegistry
  info: HistoryWorkflow
  /** Last event the client has (0 = none). */
  position: number
  includePayloads: boolean
}

function serverError (err: unknown, { workflowId, runId }: RunRef, log: FastifyBaseLogger): HistoryStreamServerError {
  const known = fromEngineError(err, { workflowId, runId })
  if (known) return { error: known.error, message: known.message, workflowId, runId }
  log.error({ err, workflowId, runId }, 'history stream failed')
  return { error: 'InternalServerError', message: 'The history stream failed', workflowId, runId }
}

/**
 * Strings a stream keeps for its whole life, built as ropes of concatenated pieces; reading one
 * character makes V8 flatten a rope into a single string, and the pieces go:
 * - the response head Node wrote (`ServerResponse#_header`, internal): about 25 pieces, some 800
 *   bytes per stream, 250 once flat;
 * - the request logger's bindings (pino's `chindings`, built by appending `,"key":value` per
 *   binding): the request id and the run ids (plugins/external/run-log.ts), some 250 bytes saved.
 * Without those properties (another Node or pino) this does nothing.
 */
export function compactForLife (reply: FastifyReply): void {
  const head = (reply.raw as unknown as { _header?: unknown })._header
  const bindings = (reply.log as unknown as Record<symbol, unknown>)[pinoSymbols.chindingsSym]
  for (const rope of [head, bindings]) if (typeof rope === 'string') rope.charCodeAt(0)
}

/**
 * One client's stream: its subscription's sink and the registry's handle. Fields only, no per-stream
 * closures but the close callback, and not the `workflow` frame's data: the run's ids come from its
 * hub, one copy for all its streams.
 */
class RunStream implements SubscriptionSink, OpenStream {
  subscription: Subscription | undefined

  constructor (
    private readonly reply: FastifyReply,
    private readonly includePayloads: boolean,
    private readonly hubs: HistoryHubs,
    private readonly streams: StreamRegistry
  ) {}

  /** Writes the frame (built once per batch and shared by every client in step) straight to the response. */
  events (batch: Batch, after: number): boolean {
    const { reply } = this
    if (!reply.sse.isConnected) return false
    this.hubs.observer.onDelivery?.(batch)
    if (reply.raw.write(batch.frameAfter(after, this.includePayloads))) return true
    reply.raw.once('drain', () => this.subscription?.resume())
    return false
  }

  end (item: HubEnd, run: RunRef): void { void this.#finish(item, run) }

  async #finish (item: HubEnd, run: RunRef): Promise<void> {
    const { reply } = this
    try {
      if (item.kind === 'done') {
        const { eventId, reason, newRunId } = item.terminal
        const done: HistoryStreamDone = newRunId ? { reason, newRunId } : { reason }
        await reply.sse.send({ id: encodeCursor({ runId: run.runId, eventId, done: true }), event: 'done', data: done })
      } else {
        await reply.sse.send({ event: 'server_error', data: serverError(item.error, run, reply.log) })
      }
    } catch (err) {
      // A write after the client left is not an error of ours.
      if (reply.sse.isConnected) reply.log.error({ err, workflowId: run.workflowId, runId: run.runId }, 'history stream write failed')
    }
    reply.sse.close()
  }

  stop (): void {
    this.subscription?.close()
    this.reply.sse.close()
  }

  heartbeat (): void {
    if (this.reply.sse.isConnected) this.reply.raw.write(HEARTBEAT)
  }

  /** The connection closed, by either side: let go of the hub and the registry. */
  closed (): void {
    this.subscription?.close()
    this.streams.delete(this)
  }
}

/** Sends the `workflow` frame, then leaves the stream to its subscription; resolves once it runs on its own. */
export async function streamRun ({ reply, hubs, streams, info, position, includePayloads }: StreamSession): Promise<void> {
  await reply.sse.send({ event: 'workflow', data: info, retry: RETRY_MS })
  if (!reply.sse.isConnected) return
  compactForLife(reply)
  reply.sse.keepAlive()
  const stream = new RunStream(reply, includePayloads, hubs, streams)
  // Subscribed first, so that a registry already shutting down (which stops what is added) ends the subscription too.
  stream.subscription = hubs.subscribe(info.workflowId, info.runId, position, stream)
  reply.sse.onClose(() => stream.closed())
  streams.add(stream)
}
