/**
 * One SSE session on a run: `workflow`, then a `history` frame per batch of
 * events the client has not seen, then `done` (or `server_error`). Every `history` and `done`
 * frame carries a cursor id, so a reconnect resumes exactly after the last frame received.
 *
 * The route handler returns once the `workflow` frame is out (`reply.sse.keepAlive()`); from then
 * on the stream is driven by its subscription's callbacks, so an idle stream is a few small
 * objects rather than a suspended async call chain (docs/performance.md, "Memory per idle SSE stream").
 */
import type { ServerResponse } from 'node:http'
import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import { fromEngineError } from '../engine-errors.js'
import { encodeCursor } from './cursor.js'
import type { Batch } from './batch.js'
import type { HistoryHubs } from './hubs.js'
import type { HubEnd, Subscription, SubscriptionSink } from './subscription.js'
import type { HistoryStreamDone, HistoryStreamServerError, HistoryWorkflow } from '../../schemas/history.js'

/** Reconnect delay hinted to EventSource: short, a resume costs one describe and a buffer replay. */
export const RETRY_MS = 2000

const HEARTBEAT = ': heartbeat\n\n'

/** An open stream as the registry of plugins/sse.ts sees it. */
export interface OpenStream {
  /** Ends the stream now (shutdown). */
  stop: () => void
  /** Writes a heartbeat comment. */
  heartbeat: () => void
}

/** Where open streams register so shutdown can end them and one timer can keep them all alive (plugins/sse.ts). */
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

function serverError (err: unknown, { workflowId, runId }: HistoryWorkflow, log: FastifyBaseLogger): HistoryStreamServerError {
  const known = fromEngineError(err, { workflowId, runId })
  if (known) return { error: known.error, message: known.message, workflowId, runId }
  log.error({ err, workflowId, runId }, 'history stream failed')
  return { error: 'InternalServerError', message: 'The history stream failed', workflowId, runId }
}

/**
 * Node keeps the response head it wrote (`ServerResponse#_header`, internal) for the life of the
 * connection as a rope of about 25 concatenated pieces, some 800 bytes per stream; reading one
 * character makes V8 flatten it into a single string. Without that property (another Node) this
 * does nothing.
 */
export function compactSentHead (res: ServerResponse): void {
  const head = (res as unknown as { _header?: unknown })._header
  if (typeof head === 'string') head.charCodeAt(0)
}

/** One client's stream: its subscription's sink and the registry's handle. Fields only, no per-stream closures but the close callback. */
class RunStream implements SubscriptionSink, OpenStream {
  subscription: Subscription | undefined

  constructor (
    private readonly reply: FastifyReply,
    private readonly info: HistoryWorkflow,
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

  end (item: HubEnd): void { void this.#finish(item) }

  async #finish (item: HubEnd): Promise<void> {
    const { reply, info } = this
    try {
      if (item.kind === 'done') {
        const { eventId, reason, newRunId } = item.terminal
        const done: HistoryStreamDone = newRunId ? { reason, newRunId } : { reason }
        await reply.sse.send({ id: encodeCursor({ runId: info.runId, eventId, done: true }), event: 'done', data: done })
      } else {
        await reply.sse.send({ event: 'server_error', data: serverError(item.error, info, reply.log) })
      }
    } catch (err) {
      // A write after the client left is not an error of ours.
      if (reply.sse.isConnected) reply.log.error({ err, workflowId: info.workflowId, runId: info.runId }, 'history stream write failed')
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
  compactSentHead(reply.raw)
  reply.sse.keepAlive()
  const stream = new RunStream(reply, info, includePayloads, hubs, streams)
  // Subscribed first, so that a registry already shutting down (which stops what is added) ends the subscription too.
  stream.subscription = hubs.subscribe(info.workflowId, info.runId, position, stream)
  reply.sse.onClose(() => stream.closed())
  streams.add(stream)
}
