/**
 * One SSE session on a run: `workflow`, then a `history` frame per batch of
 * events the client has not seen, then `done` (or `server_error`). Every `history` and `done`
 * frame carries a cursor id, so a reconnect resumes exactly after the last frame received.
 */
import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import { fromEngineError } from '../engine-errors.js'
import { encodeCursor } from './cursor.js'
import type { HubItem } from './subscription.js'
import type { HistoryHubs } from './hubs.js'
import type { HistoryStreamDone, HistoryStreamServerError, HistoryWorkflow } from '../../schemas/history.js'

/** Reconnect delay hinted to EventSource: short, a resume costs one describe and a buffer replay. */
export const RETRY_MS = 2000

/** Where open streams register so shutdown can end them (plugins/sse.ts). */
export interface StreamRegistry {
  run: (stop: () => void, body: () => Promise<void>) => Promise<void>
}

export interface StreamSession {
  reply: FastifyReply
  hubs: HistoryHubs
  streams: StreamRegistry
  info: HistoryWorkflow
  /** Last event the client has (0 = none). */
  position: number
  includePayloads: boolean
  log: FastifyBaseLogger
}

function serverError (err: unknown, { workflowId, runId }: HistoryWorkflow, log: FastifyBaseLogger): HistoryStreamServerError {
  const known = fromEngineError(err, { workflowId, runId })
  if (known) return { error: known.error, message: known.message, workflowId, runId }
  log.error({ err, workflowId, runId }, 'history stream failed')
  return { error: 'InternalServerError', message: 'The history stream failed', workflowId, runId }
}

/**
 * Writes a finished frame (shared by all clients of the batch) straight to the response the SSE
 * plugin opened, waiting for the socket to drain like the plugin's own `send` does.
 */
async function writeFrame (reply: FastifyReply, frame: Buffer): Promise<void> {
  if (reply.raw.write(frame)) return
  await new Promise<void>((resolve) => {
    const done = () => {
      reply.raw.off('drain', done)
      reply.raw.off('close', done)
      resolve()
    }
    reply.raw.once('drain', done)
    reply.raw.once('close', done)
  })
}

export async function streamRun ({ reply, hubs, streams, info, position, includePayloads, log }: StreamSession): Promise<void> {
  const { workflowId, runId } = info
  const subscription = hubs.subscribe(workflowId, runId, position)
  const stop = () => subscription.close()
  reply.sse.onClose(stop)
  await streams.run(stop, async () => {
    try {
      await reply.sse.send({ event: 'workflow', data: info, retry: RETRY_MS })
      for (let item = await subscription.next(); item; item = await subscription.next()) {
        // Everything already queued goes out in one write: under load (batches arriving faster
        // than a fan-out to every client takes) each client costs one syscall per round, not per batch.
        const frames: Buffer[] = []
        let end: HubItem | undefined
        for (let ready: HubItem | undefined = item; ready; ready = subscription.nextReady()) {
          if (ready.kind !== 'events') {
            end = ready
            break
          }
          frames.push(ready.batch.frameAfter(ready.after, includePayloads))
          hubs.observer.onDelivery?.(ready.batch)
        }
        if (!reply.sse.isConnected) return
        if (frames.length > 0) await writeFrame(reply, frames.length === 1 ? frames[0] : Buffer.concat(frames))
        if (end?.kind === 'done') {
          const { eventId, reason, newRunId } = end.terminal
          const done: HistoryStreamDone = newRunId ? { reason, newRunId } : { reason }
          await reply.sse.send({ id: encodeCursor({ runId, eventId, done: true }), event: 'done', data: done })
          return
        }
        if (end?.kind === 'error') {
          await reply.sse.send({ event: 'server_error', data: serverError(end.error, info, log) })
          return
        }
      }
    } catch (err) {
      // A write after the client left is not an error of ours.
      if (reply.sse.isConnected) log.error({ err, workflowId, runId }, 'history stream write failed')
    } finally {
      subscription.close()
    }
  })
}
