/**
 * GET …/input. A run's first event never changes, so the input is kept once read, also while the
 * run is open; a pinned run needs no describe, nor does the latest when its first page is whole.
 */
import { CATALOG_WORKFLOW_TYPE } from '@flowport/core/contract'
import type { WorkflowInput } from '../../../schemas/workflow.js'
import { ApiError, notFound } from '../../../lib/api-error.js'
import type { ExecutionReads } from './execution.js'
import { isReservedWorkflowId, runNotFound, readLatestPage, readRunStart } from '../engine/index.js'
import type { DescribeOptions } from './types.js'
import type { RunsContext } from './deps.js'

export function inputReads (deps: RunsContext & ExecutionReads) {
  async function readInput ({ workflowId, runId, signal }: DescribeOptions): Promise<WorkflowInput> {
    const pinned = runId !== undefined
    const page = pinned || isReservedWorkflowId(workflowId) ? undefined : await readLatestPage(deps, workflowId, signal)
    const run = { workflowId, runId: runId ?? page?.runId ?? (await deps.describeForRead({ workflowId, signal })).runId }
    const known = deps.closedRuns.get(workflowId, run.runId)
    if (known?.input !== undefined) return await inputOf(run, known.input)
    if (isReservedWorkflowId(workflowId)) throw notFound(`Workflow ${workflowId} not found`, run)
    const start = page?.startsRun(run.runId) === true
      ? page.start
      : await readRunStart(deps, run, signal).catch((err: unknown) => {
        throw pinned && err instanceof ApiError && err.statusCode === 404 ? runNotFound(run) : err
      })
    if (start.type === CATALOG_WORKFLOW_TYPE) throw notFound(`Workflow ${workflowId} not found`, pinned ? run : { workflowId })
    deps.closedRuns.remember(workflowId, run.runId, { input: start.input, workflowName: start.type, taskQueue: start.taskQueue })
    return await inputOf(run, start.input)
  }

  async function inputOf (run: { workflowId: string, runId: string }, input: unknown): Promise<WorkflowInput> {
    const { value, link } = await deps.payloads.inlineOrLink(input)
    return { ...run, input: value, ...(link === undefined ? {} : { inputRef: link }) }
  }

  return { readInput }
}
