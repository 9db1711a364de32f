/**
 * The `workflow` object of a history page and of the stream's `workflow` event (DESIGN.md §5),
 * in the API's one status vocabulary and time format.
 */
import type { FastifyInstance } from 'fastify'
import { isoOrNull, statusFromEngine, type Status } from '../status.js'

export interface WorkflowInfo {
  workflowId: string
  runId: string
  status: Status
  startTime: string | null
  closeTime: string | null
  historyLength: number
  taskQueue: string
}

/** Describes one run, or the current run when `runId` is omitted; 404 when there is none. */
export async function describeRun (fastify: FastifyInstance, workflowId: string, runId?: string, signal?: AbortSignal): Promise<WorkflowInfo> {
  const info = await fastify.engineCall(() => fastify.temporal.workflow.getHandle(workflowId, runId).describe(), { signal, workflowId, runId })
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    status: statusFromEngine(info.status.name),
    startTime: isoOrNull(info.startTime),
    closeTime: isoOrNull(info.closeTime),
    historyLength: info.historyLength,
    taskQueue: info.taskQueue
  }
}
