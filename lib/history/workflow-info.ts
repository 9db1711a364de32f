/**
 * The `workflow` object of a history page and of the stream's `workflow` event (DESIGN.md §5),
 * in the API's one status vocabulary and time format.
 */
import type { FastifyInstance } from 'fastify'
import { describeRun as describeExecution } from '../execution.js'
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

/**
 * Describes one run, or the current run when `runId` is omitted; 404 when there is none, and for
 * the internal catalog workflows, exactly as every other route (lib/execution.ts).
 */
export async function describeRun (fastify: FastifyInstance, workflowId: string, runId?: string, signal?: AbortSignal): Promise<WorkflowInfo> {
  const info = await describeExecution(fastify, { workflowId, runId, signal })
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
