/**
 * One SSE session on a run (DESIGN.md §5): `workflow`, then a `history` frame per batch of
 * events the client has not seen, then `done` (or `server_error`). Every `history` and `done`
 * frame carries a cursor id, so a reconnect resumes exactly after the last frame received.
 */
import type { FastifyBaseLogger, FastifyReply } from 'fastify'
import { fromEngineError } from '../engine-errors.js'
import { encodeCursor } from './cursor.js'
import type { HistoryHubs } from './hub.js'
import type { WorkflowInfo } from './workflow-info.js'
import type { HistoryStreamDone, HistoryStreamServerError } from '../../schemas/history.js'

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
  info: WorkflowInfo
  /** Last event the client has (0 = none). */
  position: number
  includePayloads: boolean
  log: FastifyBaseLogger
}

function serverError (err: unknown, { workflowId, runId }: WorkflowInfo, log: FastifyBaseLogger): HistoryStreamServerError {
  const known = fromEngineError(err, { workflowId, runId })
  if (known) return { error: known.error, message: known.message, workflowId, runId }
  log.error({ err, workflowId, runId }, 'history stream failed')
  return { error: 'InternalServerError', message: 'The history stream failed', workflowId, runId }
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
        if (item.kind === 'events') {
          const id = encodeCursor({ runId, eventId: item.batch.lastId, done: false })
          await reply.sse.send({ id, event: 'history', data: item.batch.textAfter(item.after, includePayloads) })
        } else if (item.kind === 'done') {
          const { eventId, reason, newRunId } = item.terminal
          const done: HistoryStreamDone = newRunId ? { reason, newRunId } : { reason }
          await reply.sse.send({ id: encodeCursor({ runId, eventId, done: true }), event: 'done', data: done })
          return
        } else {
          await reply.sse.send({ event: 'server_error', data: serverError(item.error, info, log) })
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
