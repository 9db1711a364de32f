/**
 * The eval workflow's own activities (worker/src/workflow/eval.ts): read an eval's cases from the
 * dataset files of the worker that runs it, and find each case's latest earlier result through the
 * engine's visibility store (no other record of eval runs exists). And the API's check of a request
 * before it starts an eval run (worker/src/workflow/eval-check.ts), on the same dataset files.
 */
import { dirname, relative, sep } from 'node:path'
import { Context } from '@temporalio/activity'
import type { Client } from '@temporalio/client'
import { ApplicationFailure } from '@temporalio/common'
import {
  EVAL_CASES_ACTIVITY, EVAL_CHECK_ACTIVITY, EVAL_PREVIOUS_ACTIVITY, EVAL_WORKFLOW_TYPE, evalWorkflowIdPrefix,
  type EvalCases, type EvalCheck, type EvalReport, type EvalRunInput, type PreviousEval
} from '@flowport/core/eval'
import type { Registry } from '../registry.js'
import { DatasetError, datasetsDir, packageRoot, readDatasets } from './datasets.js'

/**
 * A mistake in the eval's definition or datasets: retrying cannot help, the eval run fails with it.
 * `field`: the request's field at fault, when the request is (the API refuses it before a run starts).
 */
const refuse = (type: string, message: string, field?: NonNullable<EvalCheck>['field']) =>
  ApplicationFailure.create({ type, message, nonRetryable: true, details: field === undefined ? [] : [field] })

/** The eval's cases and evaluators for a request; what is wrong with the request or the datasets is `refuse`d. */
function readCases (registry: Registry, { workflow, datasets, cached }: EvalRunInput): EvalCases {
  const registered = registry.workflows.find((w) => w.meta.name === workflow)
  if (registered?.eval === undefined) throw refuse('EvalNotFoundError', `Workflow ${workflow} has no eval on this worker (an eval module beside the workflow file)`)
  const root = packageRoot(registered.file)
  let all
  try {
    all = readDatasets(dirname(registered.file), root)
  } catch (err) {
    if (err instanceof DatasetError) throw refuse('DatasetError', err.message)
    throw err
  }
  const picked = datasets === undefined ? all : all.filter((c) => datasets.includes(c.name))
  const unknown = (datasets ?? []).filter((name) => !all.some((c) => c.name === name))
  if (unknown.length > 0) throw refuse('DatasetNotFoundError', `Workflow ${workflow} has no dataset ${unknown.join(', ')} (it has: ${all.map((c) => c.name).join(', ') || 'none'})`, 'datasets')
  if (picked.length === 0) {
    throw refuse('DatasetNotFoundError', `Workflow ${workflow} has no datasets: add case files to ${relative(root, datasetsDir(dirname(registered.file))).split(sep).join('/')}/ in ${registered.origin.package}`, 'datasets')
  }
  const uncached = cached ? picked.filter((c) => c.lastOutput === undefined) : []
  if (uncached.length > 0) throw refuse('DatasetError', `No cached output in dataset ${uncached.map((c) => c.name).join(', ')}: run the eval without --cached, with --save, first`, 'cached')
  const evaluators = registered.eval.definition.evaluators.map((e) => ({ name: e.evaluator, criticality: e.criticality, interpret: e.interpret }))
  return { evaluators, cases: picked }
}

/** How many earlier eval runs are read, at most, to find each case's latest earlier result. */
const EARLIER_RUNS_READ = 25

/** The workflow's dataset names now; none when they cannot be read (the cases activity said why). */
function datasetNames (registry: Registry, workflow: string): string[] {
  const registered = registry.workflows.find((w) => w.meta.name === workflow)
  if (registered === undefined) return []
  try {
    return readDatasets(dirname(registered.file)).map((c) => c.name)
  } catch {
    return []
  }
}

export function evalActivities ({ client, registry }: { client: Client, registry: Registry }): Record<string, (input: never) => Promise<unknown>> {
  const cases = async (input: EvalRunInput): Promise<EvalCases> => readCases(registry, input)

  /** The API's check before it starts an eval run: the request's mistake, or null (other failures are the eval run's). */
  const check = async (input: EvalRunInput): Promise<EvalCheck> => {
    try {
      readCases(registry, input)
      return null
    } catch (err) {
      if (!(err instanceof ApplicationFailure)) throw err
      const field = err.details?.[0] as NonNullable<EvalCheck>['field'] | undefined
      return field === undefined ? null : { error: err.type as NonNullable<EvalCheck>['error'], field, message: err.message }
    }
  }

  /**
   * Each case's latest earlier result: completed eval runs come most recently closed first, and
   * each case takes its verdict from the first that had it, whatever cases or mode that run had
   * (a run of one dataset, a cached run), until every dataset of the workflow has one or
   * EARLIER_RUNS_READ runs were read.
   */
  const previous = async ({ workflow, workflowId }: { workflow: string, workflowId: string }): Promise<PreviousEval> => {
    // Of the same catalog (= task queue): another catalog's workflow of that name may be another workflow.
    const { taskQueue } = Context.current().info
    const query = `WorkflowType = "${EVAL_WORKFLOW_TYPE}" AND WorkflowId STARTS_WITH "${evalWorkflowIdPrefix(workflow)}" AND TaskQueue = ${JSON.stringify(taskQueue)} AND ExecutionStatus = "Completed"`
    const wanted = new Set(datasetNames(registry, workflow))
    const found = new Map<string, NonNullable<PreviousEval>['cases'][number]>()
    let latest: { workflowId: string, runId: string } | undefined
    let read = 0
    for await (const run of client.workflow.list({ query, pageSize: 10 })) {
      if (run.workflowId === workflowId) continue
      const report = await client.workflow.getHandle(run.workflowId, run.runId).result() as EvalReport
      latest ??= { workflowId: run.workflowId, runId: run.runId }
      for (const { name, verdict } of report.cases) {
        if (!found.has(name)) found.set(name, { name, verdict, workflowId: run.workflowId, runId: run.runId })
      }
      if (++read >= EARLIER_RUNS_READ || [...wanted].every((name) => found.has(name))) break
    }
    return latest === undefined ? null : { ...latest, cases: [...found.values()] }
  }

  return { [EVAL_CASES_ACTIVITY]: cases, [EVAL_PREVIOUS_ACTIVITY]: previous, [EVAL_CHECK_ACTIVITY]: check }
}
