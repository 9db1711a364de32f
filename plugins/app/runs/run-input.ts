/**
 * GET …/input: the input a run was started with (the latest run for the unpinned form; after
 * continue-as-new, the input the newest run received). A run's first event never changes, so
 * the input is kept once read (./closed-runs.ts), also while the run is open; a pinned run is
 * read without a describe, and so is the latest run when the first page of its history is the whole
 * of it (a longer one costs that page and the describe).
 */
import { CATALOG_WORKFLOW_TYPE } from '@flowport/core/contract'
import type { WorkflowInput } from '../../../schemas/workflow.js'
import { ApiError, notFound } from '../../../lib/api-error.js'
import { describeForRead } from './execution.js'
import { isReservedWorkflowId, runNotFound, readLatestPage, readRunStart } from '../engine/index.js'
import type { DescribeOptions } from './types.js'
import type { RunsContext } from './deps.js'

export async function readInput (deps: Pick<RunsContext, 'engine' | 'payloads' | 'closedRuns' | 'longHistories'>, { workflowId, runId, signal }: DescribeOptions): Promise<WorkflowInput> {
  const pinned = runId !== undefined
  // The latest run: the first page of the id's history names it when it is the whole history (plugins/app/engine/runs/history.ts).
  const page = pinned || isReservedWorkflowId(workflowId) ? undefined : await readLatestPage(deps, workflowId, signal)
  const run = { workflowId, runId: runId ?? page?.runId ?? (await describeForRead(deps, { workflowId, signal })).runId }
  const known = deps.closedRuns.get(workflowId, run.runId)
  if (known?.input !== undefined) return await inputOf(deps, run, known.input)
  if (isReservedWorkflowId(workflowId)) throw notFound(`Workflow ${workflowId} not found`, run)
  const start = page?.startsRun(run.runId) === true
    ? page.start
    : await readRunStart(deps, run, signal).catch((err: unknown) => {
      throw pinned && err instanceof ApiError && err.statusCode === 404 ? runNotFound(run) : err
    })
  if (start.type === CATALOG_WORKFLOW_TYPE) throw notFound(`Workflow ${workflowId} not found`, pinned ? run : { workflowId })
  deps.closedRuns.remember(workflowId, run.runId, { input: start.input, workflowName: start.type })
  return await inputOf(deps, run, start.input)
}

/** The answer, with a large input given as its presigned download (plugins/app/payloads/payloads.ts). */
async function inputOf ({ payloads }: Pick<RunsContext, 'payloads'>, run: { workflowId: string, runId: string }, input: unknown): Promise<WorkflowInput> {
  const { value, link } = await payloads.inlineOrLink(input)
  return { ...run, input: value, ...(link === undefined ? {} : { inputRef: link }) }
}
