/**
 * Every `history` and `done` frame carries a cursor id, so a reconnect resumes after the last
 * frame received. The handler returns once the `workflow` frame is out; the subscription's
 * callbacks drive the rest, so an idle stream is a few objects, not a suspended async chain
 * (docs/performance.md, "Memory per idle SSE stream").
 */
import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import { fromEngineError } from '../engine/index.js'
import { RETRY_MS, compactForLife, type OpenStream, type StreamRegistry } from '../../external/sse/streams.js'
import { validationError, type Issue } from '../../../lib/api-error.js'
import { decodeCursor, encodeCursor } from './cursor.js'
import type { EventChunk } from './event-chunk.js'
import type { HistoryHubs } from './hubs.js'
import type { HubEnd, Subscription, SubscriptionSink } from './subscription.js'
import type { RunRef } from '@flowport/core/run'
import type { HistoryStreamDone, HistoryStreamServerError } from '../../../schemas/history.js'
import { type Runs, historyWorkflowOf } from '../runs/index.js'

const HEARTBEAT = ': heartbeat\n\n'

export interface StreamDeps {
  runs: Pick<Runs, 'describeRun' | 'readAttention'>
  hubs: HistoryHubs
  streams: StreamRegistry
}

export interface StreamRequest {
  reply: FastifyReply
  workflowId: string
  /** Absent = the run named by the cursor, else the run current now. */
  runId?: string
  lastEventId?: string
  issue: Omit<Issue, 'message'>
  includePayloads: boolean
}

function serverError (err: unknown, { workflowId, runId }: RunRef, log: FastifyBaseLogger): HistoryStreamServerError {
  const known = fromEngineError(err, { workflowId, runId })
  if (known) return { error: known.error, message: known.message, workflowId, runId }
  log.error({ err, workflowId, runId }, 'history stream failed')
  return { error: 'InternalServerError', message: 'The history stream failed', workflowId, runId }
}

/** Fields only, no per-stream closure but the close callback; the run's ids live once in the hub. */
class RunStream implements SubscriptionSink, OpenStream {
  subscription: Subscription | undefined

  constructor (
    private readonly reply: FastifyReply,
    private readonly includePayloads: boolean,
    private readonly hubs: HistoryHubs,
    private readonly streams: StreamRegistry
  ) {}

  /** The frame is built once per batch, shared by every client in step. */
  events (batch: EventChunk, after: number): boolean {
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

  closed (): void {
    this.subscription?.close()
    this.streams.delete(this)
  }
}

/** Whatever can fail as JSON (cursor, run lookup, 204 after `done`) does so before the first SSE byte; later failures are `server_error` events. */
export async function streamRun ({ runs, hubs, streams }: StreamDeps, { reply, workflowId, runId, lastEventId, issue, includePayloads }: StreamRequest): Promise<void> {
  const cursor = lastEventId === undefined ? undefined : decodeCursor(lastEventId)
  if (lastEventId !== undefined && !cursor) throw validationError([{ ...issue, message: 'Not an event id of this API' }])
  if (cursor && runId && cursor.runId !== runId.toLowerCase()) {
    // A cursor naming a run this workflow does not have is a 404 like any unknown run; one of another run of it, a 400.
    await runs.describeRun({ workflowId, runId: cursor.runId })
    throw validationError([{ ...issue, message: 'The event id belongs to another run' }])
  }
  const execution = await runs.describeRun({ workflowId, runId: runId ?? cursor?.runId })
  const attention = await runs.readAttention({ workflowId, runId: execution.runId }, execution)
  const info = { ...historyWorkflowOf(execution), attention }
  if (cursor && cursor.eventId > info.historyLength) throw validationError([{ ...issue, message: 'The event id is ahead of the run\'s history' }])
  if (cursor?.done) {
    await reply.code(204).send()
    return
  }
  await reply.sse.send({ event: 'workflow', data: info, retry: RETRY_MS })
  if (!reply.sse.isConnected) return
  compactForLife(reply)
  reply.sse.keepAlive()
  const stream = new RunStream(reply, includePayloads, hubs, streams)
  // Subscribed first, so that a registry already shutting down (which stops what is added) ends the subscription too.
  stream.subscription = hubs.subscribe(info.workflowId, info.runId, cursor?.eventId ?? 0, stream)
  reply.sse.onClose(() => stream.closed())
  streams.add(stream)
}
