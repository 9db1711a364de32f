/**
 * The eval workflow's own activities (worker/src/workflow/eval.ts): read an eval's cases from the
 * dataset files of the worker that runs it, and find the previous eval run of the same workflow
 * through the engine's visibility store (no other record of eval runs exists).
 */
import { dirname } from 'node:path'
import { Context } from '@temporalio/activity'
import type { Client } from '@temporalio/client'
import { ApplicationFailure } from '@temporalio/common'
import {
  EVAL_CASES_ACTIVITY, EVAL_PREVIOUS_ACTIVITY, EVAL_WORKFLOW_TYPE, evalWorkflowIdPrefix,
  type EvalCases, type EvalReport, type EvalRunInput, type PreviousEval
} from '@flowport/core/eval'
import type { Registry } from '../registry.js'
import { DatasetError, readDatasets } from './datasets.js'

/** A mistake in the eval's definition or datasets: retrying cannot help, the eval run fails with it. */
const refuse = (type: string, message: string) => ApplicationFailure.create({ type, message, nonRetryable: true })

export function evalActivities ({ client, registry }: { client: Client, registry: Registry }): Record<string, (input: never) => Promise<unknown>> {
  const cases = async ({ workflow, datasets, cached }: EvalRunInput): Promise<EvalCases> => {
    const registered = registry.workflows.find((w) => w.meta.name === workflow)
    if (registered?.eval === undefined) throw refuse('EvalNotFoundError', `Workflow ${workflow} has no eval on this worker (an eval module beside the workflow file)`)
    let all
    try {
      all = readDatasets(dirname(registered.file))
    } catch (err) {
      if (err instanceof DatasetError) throw refuse('DatasetError', err.message)
      throw err
    }
    const picked = datasets === undefined ? all : all.filter((c) => datasets.includes(c.name))
    const unknown = (datasets ?? []).filter((name) => !all.some((c) => c.name === name))
    if (unknown.length > 0) throw refuse('DatasetNotFoundError', `Workflow ${workflow} has no dataset ${unknown.join(', ')} (it has: ${all.map((c) => c.name).join(', ') || 'none'})`)
    if (picked.length === 0) throw refuse('DatasetNotFoundError', `Workflow ${workflow} has no datasets: add case files to ${dirname(registered.file)}/datasets/`)
    const uncached = cached ? picked.filter((c) => c.lastOutput === undefined) : []
    if (uncached.length > 0) throw refuse('DatasetError', `No cached output in dataset ${uncached.map((c) => c.name).join(', ')}: run the eval without --cached, with --save, first`)
    const evaluators = registered.eval.definition.evaluators.map((e) => ({ name: e.evaluator, criticality: e.criticality, interpret: e.interpret }))
    return { evaluators, cases: picked }
  }

  const previous = async ({ workflow, workflowId }: { workflow: string, workflowId: string }): Promise<PreviousEval> => {
    // Closed runs come most recently closed first: the first one that is not this run is the previous one.
    // Of the same catalog (= task queue): another catalog's workflow of that name may be another workflow.
    const { taskQueue } = Context.current().info
    const query = `WorkflowType = "${EVAL_WORKFLOW_TYPE}" AND WorkflowId STARTS_WITH "${evalWorkflowIdPrefix(workflow)}" AND TaskQueue = ${JSON.stringify(taskQueue)} AND ExecutionStatus = "Completed"`
    for await (const run of client.workflow.list({ query, pageSize: 10 })) {
      if (run.workflowId === workflowId) continue
      const report = await client.workflow.getHandle(run.workflowId, run.runId).result() as EvalReport
      return { workflowId: run.workflowId, runId: run.runId, cases: report.cases.map(({ name, verdict }) => ({ name, verdict })) }
    }
    return null
  }

  return { [EVAL_CASES_ACTIVITY]: cases, [EVAL_PREVIOUS_ACTIVITY]: previous }
}
