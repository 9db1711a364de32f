/**
 * Finding the run a request is about: the latest run of a workflow id, or a pinned run. Every
 * later engine call of the request is pinned to the run found here, so a run that continues as
 * new or is restarted meanwhile is never touched by mistake, and responses name the run acted on.
 */
import type { FastifyInstance } from 'fastify'
import type { WorkflowExecutionInfo } from '@temporalio/client'
import { CATALOG_WORKFLOW_TYPE } from '@flowport/worker/contract'
import type { HistoryWorkflow } from '../schemas/history.js'
import type { WorkflowStatus } from '../schemas/workflow.js'
import { ApiError, notFound } from './api-error.js'
import { isoOrNull, statusFromEngine } from './status.js'

/** Internal workflows (the published catalogs, `__flowport_catalog:<id>`) are not the API's to show, signal or stop. */
export const RESERVED_ID_PREFIX = '__flowport'

export function isReservedWorkflowId (workflowId: string): boolean {
  return workflowId.startsWith(RESERVED_ID_PREFIX)
}

export interface DescribeOptions {
  workflowId: string
  /** Pins the run; absent = the latest run of the id. */
  runId?: string
  signal?: AbortSignal
}

export type Execution = Pick<WorkflowExecutionInfo, 'type' | 'workflowId' | 'runId' | 'taskQueue' | 'status' | 'historyLength' | 'startTime' | 'closeTime' | 'parentExecution'>

export async function describeRun (fastify: FastifyInstance, { workflowId, runId, signal }: DescribeOptions): Promise<Execution> {
  const ctx = { workflowId, runId }
  if (isReservedWorkflowId(workflowId)) throw notFound(`Workflow ${workflowId} not found`, ctx)
  const execution = await fastify.engineCall(() => fastify.temporal.workflow.getHandle(workflowId, runId).describe(), { signal, ...ctx })
  if (execution.type === CATALOG_WORKFLOW_TYPE) throw notFound(`Workflow ${workflowId} not found`, ctx)
  return execution
}

/** `workersPolling` is only known for open runs (see `statusWithWorkers`); null otherwise. */
export function statusOf (execution: Execution, workersPolling: boolean | null = null): WorkflowStatus {
  return {
    workflowId: execution.workflowId,
    runId: execution.runId,
    workflowName: execution.type,
    catalog: execution.taskQueue,
    status: statusFromEngine(execution.status.name),
    startTime: isoOrNull(execution.startTime),
    closeTime: isoOrNull(execution.closeTime),
    historyLength: execution.historyLength,
    parentWorkflowId: execution.parentExecution?.workflowId ?? null,
    workersPolling
  }
}

/** The `workflow` object of a history page and of a stream's `workflow` event: the same facts, named by task queue. */
export function historyWorkflowOf (execution: Execution): HistoryWorkflow {
  const { workflowId, runId, status, startTime, closeTime, historyLength, catalog } = statusOf(execution)
  return { workflowId, runId, status, startTime, closeTime, historyLength, taskQueue: catalog }
}

/** The status, and for an open run whether a worker polls its task queue (a run nobody polls never moves). */
export async function statusWithWorkers (fastify: FastifyInstance, execution: Execution, signal?: AbortSignal): Promise<WorkflowStatus> {
  if (execution.closeTime) return statusOf(execution)
  return statusOf(execution, (await fastify.catalogs.workers(execution.taskQueue, signal)).polling)
}

export function alreadyClosed (run: { workflowId: string, runId: string }, status: string): ApiError {
  return new ApiError(409, 'WorkflowAlreadyClosedError', `Workflow ${run.workflowId} run ${run.runId} is already closed (${status})`, run)
}

/** After a describe said "open", a not-found from the engine means the run closed in between. */
export function closedMeanwhile (err: unknown, run: { workflowId: string, runId: string }): unknown {
  return err instanceof ApiError && err.statusCode === 404 ? alreadyClosed(run, 'closed meanwhile') : err
}
