/**
 * An eval run is a run of the worker's eval workflow, id `eval:<workflow>:<uuid>`: the engine is its
 * only record (an id-prefix query lists them, the memo summarizes, the result is the report; docs/evals.md).
 */
import { randomUUID } from 'node:crypto'
import { WorkflowFailedError, type WorkflowExecutionInfo } from '@temporalio/client'
import {
  EVAL_CHECK_WORKFLOW_TYPE, EVAL_DEFAULT_CASE_TIMEOUT_MS, EVAL_DEFAULT_CONCURRENCY, EVAL_SUMMARY_MEMO_KEY, EVAL_WORKFLOW_TYPE, evalCheckWorkflowId,
  evalWorkflowIdPrefix, type EvalCheck, type EvalReport, type EvalRunInput, type EvalSummary
} from '@flowport/core/eval'
import type { Config } from '../../../schemas/config.js'
import type { EvalRun, EvalRunSummary, EvalRuns, EvalsQuery, StartEvalBody } from '../../../schemas/evals.js'
import { notFound, validationError } from '../../../lib/api-error.js'
import { notForDeclared, type Catalogs } from '../catalogs/index.js'
import { type Engine, statusFromEngine } from '../engine/index.js'
import { quote } from '../../../lib/visibility-query.js'
import { isTerminalStatus } from '@flowport/core/run'

export type Evals = ReturnType<typeof createEvals>

export interface EvalsDeps {
  engine: Engine
  catalogs: Pick<Catalogs, 'workflow' | 'get'>
  config: Pick<Config, 'SERVICE_CATALOG_ID'>
}

export interface EvalCallOptions {
  identity?: string
  signal?: AbortSignal
}

type Info = Pick<WorkflowExecutionInfo, 'workflowId' | 'runId' | 'taskQueue' | 'status' | 'startTime' | 'closeTime' | 'memo'>

function summaryOf (info: Info, workflowName: string): EvalRunSummary {
  const memo = info.memo?.[EVAL_SUMMARY_MEMO_KEY] as EvalSummary | undefined
  return {
    evalId: info.workflowId,
    runId: info.runId,
    workflowName,
    catalog: info.taskQueue,
    status: statusFromEngine(info.status.name),
    startTime: info.startTime.toISOString(),
    closeTime: info.closeTime?.toISOString() ?? null,
    cached: memo?.cached ?? null,
    verdict: memo?.verdict ?? null,
    totals: memo?.totals ?? null
  }
}

/**
 * Then the eval run starts unchecked: a busy or absent worker must not hold it back, and the run
 * itself still fails on a mistake the check would have refused.
 */
const CHECK_TIMEOUT_S = 15

/** The deepest message: what went wrong, not "Workflow execution failed". */
function messageOf (err: unknown): string {
  let e = err as { message?: unknown, cause?: unknown }
  while (e.cause !== undefined && e.cause !== null) e = e.cause as typeof e
  return typeof e.message === 'string' ? e.message : String(err)
}

export function createEvals ({ engine, catalogs, config }: EvalsDeps) {
  /** The request's mistake, or null; null too when the worker does not answer in time. */
  const check = async (catalog: string, input: EvalRunInput, { identity, signal }: EvalCallOptions): Promise<EvalCheck> => {
    const workflowId = evalCheckWorkflowId(randomUUID())
    try {
      return await engine.call(async () => await engine.as(identity).workflow.execute(EVAL_CHECK_WORKFLOW_TYPE, {
        taskQueue: catalog, workflowId, args: [input], workflowExecutionTimeout: `${CHECK_TIMEOUT_S}s`
      }) as EvalCheck, { signal, workflowId, timeoutMs: (CHECK_TIMEOUT_S + 5) * 1000 })
    } catch (err) {
      // Timed out (no worker polls, or one too busy to answer) or failed: the eval run checks again.
      if (err instanceof WorkflowFailedError) return null
      throw err
    }
  }

  return {
    async start (body: StartEvalBody, { identity, signal }: EvalCallOptions = {}): Promise<{ evalId: string, runId: string }> {
      const catalog = body.catalog ?? config.SERVICE_CATALOG_ID
      const workflow = await catalogs.workflow(catalog, body.workflowName, signal)
      if (workflow.eval === undefined) {
        const published = await catalogs.get(catalog, signal)
        if (published.declared === true) throw notFound(notForDeclared(published, 'Evals'))
        throw notFound(`Workflow ${workflow.name} has no eval: add an eval module (defineEval) and datasets beside the workflow file`)
      }
      const evalId = `${evalWorkflowIdPrefix(workflow.name)}${randomUUID()}`
      // The bounds are written into the run's input, so a later change of the defaults never changes how an open eval run replays.
      const input: EvalRunInput = {
        workflow: workflow.name,
        cached: body.cached ?? false,
        ...(body.datasets === undefined ? {} : { datasets: body.datasets }),
        concurrency: body.concurrency ?? EVAL_DEFAULT_CONCURRENCY,
        caseTimeoutMs: body.caseTimeoutMs ?? EVAL_DEFAULT_CASE_TIMEOUT_MS
      }
      const problem = await check(catalog, input, { identity, signal })
      if (problem !== null) {
        throw validationError([{ path: `/${problem.field}`, in: 'body', message: problem.message }])
      }
      const handle = await engine.call(() => engine.as(identity).workflow.start(EVAL_WORKFLOW_TYPE, {
        taskQueue: catalog, workflowId: evalId, args: [input]
      }), { signal, workflowId: evalId })
      return { evalId, runId: handle.firstExecutionRunId }
    },

    async list ({ workflowName, catalog, pageSize = 20 }: EvalsQuery, signal?: AbortSignal): Promise<EvalRuns> {
      const query = [
        `WorkflowType = ${quote(EVAL_WORKFLOW_TYPE)}`,
        `WorkflowId STARTS_WITH ${quote(evalWorkflowIdPrefix(workflowName))}`,
        ...(catalog === undefined ? [] : [`TaskQueue = ${quote(catalog)}`])
      ].join(' AND ')
      const evals = await engine.call(async () => {
        const found: EvalRunSummary[] = []
        for await (const info of engine.client.workflow.list({ query, pageSize })) {
          found.push(summaryOf(info, workflowName))
          if (found.length === pageSize) break
        }
        return found
      }, { signal })
      return { evals }
    },

    async read (evalId: string, workflowName: string, signal?: AbortSignal): Promise<EvalRun> {
      const handle = engine.client.workflow.getHandle(evalId)
      const description = await engine.call(() => handle.describe(), { signal, workflowId: evalId })
      if (description.type !== EVAL_WORKFLOW_TYPE) throw notFound(`${evalId} is not an eval run`, { workflowId: evalId })
      const summary = summaryOf(description, workflowName)
      let report: EvalReport | null = null
      let error: string | null = null
      if (isTerminalStatus(summary.status)) {
        try {
          report = await engine.call(() => engine.client.workflow.getHandle(evalId, description.runId).result() as Promise<EvalReport>, { signal, workflowId: evalId })
        } catch (err) {
          if (!(err instanceof WorkflowFailedError)) throw err
          error = messageOf(err)
        }
      }
      return { ...summary, report, error }
    }
  }
}
