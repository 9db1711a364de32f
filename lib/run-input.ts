/**
 * GET …/input: the input a run was started with (the latest run for the unpinned form; after
 * continue-as-new, the input the newest run received). A run's first event never changes, so
 * the input is kept once read (lib/closed-runs.ts), also while the run is open; a pinned run is
 * read without a describe.
 */
import type { FastifyInstance } from 'fastify'
import { CATALOG_WORKFLOW_TYPE } from '@flowport/worker/contract'
import type { WorkflowInput } from '../schemas/workflow.js'
import { ApiError, notFound } from './api-error.js'
import { describeForRead, isReservedWorkflowId, runNotFound, type DescribeOptions } from './execution.js'
import { readRunStart } from './run-history.js'

export async function readInput (fastify: FastifyInstance, { workflowId, runId, signal }: DescribeOptions): Promise<WorkflowInput> {
  const pinned = runId !== undefined
  const run = { workflowId, runId: runId ?? (await describeForRead(fastify, { workflowId, signal })).runId }
  const known = fastify.closedRuns.get(workflowId, run.runId)
  if (known?.input !== undefined) return { ...run, input: known.input }
  if (isReservedWorkflowId(workflowId)) throw notFound(`Workflow ${workflowId} not found`, run)
  const start = await readRunStart(fastify, run, signal).catch((err: unknown) => {
    throw pinned && err instanceof ApiError && err.statusCode === 404 ? runNotFound(run) : err
  })
  if (start.type === CATALOG_WORKFLOW_TYPE) throw notFound(`Workflow ${workflowId} not found`, pinned ? run : { workflowId })
  fastify.closedRuns.remember(workflowId, run.runId, { input: start.input })
  return { ...run, input: start.input }
}
