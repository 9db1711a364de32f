/**
 * The starts service: starting runs from requests (./start-workflow.ts), update-with-start
 * (./update-with-start.ts), and waiting for a started run's result (./run-workflow.ts).
 */
import type { CatalogWorkflow } from '@flowport/worker/contract'
import type { RunWorkflowBody, StartWorkflowBody, WorkflowResult } from '../../../schemas/workflow.js'
import type { CloseWait, RunRef } from '../../../lib/run-history.js'
import type { StartDeps } from './start-deps.js'
import { catalogOf, checkedWorkflow, startWorkflow, type StartOptions, type Started } from './start-workflow.js'
import { updateWithStart, type UpdatedWithStart } from './update-with-start.js'
import { runWorkflow, waitForResult, type StillOpen } from './run-workflow.js'

export interface Starts {
  /** The catalog a start body names (`catalog`, the deprecated `taskQueue`, or the default). */
  catalogOf: (body: StartWorkflowBody) => string
  /** The catalog's workflow of a name or alias, once `input` matches its inputSchema (404, 400, 503). */
  checkedWorkflow: (catalog: string, workflowName: string, input: unknown, signal?: AbortSignal) => Promise<CatalogWorkflow>
  startWorkflow: (body: StartWorkflowBody, options?: StartOptions) => Promise<Started>
  updateWithStart: (body: StartWorkflowBody & { update: NonNullable<StartWorkflowBody['update']> }, options?: StartOptions) => Promise<UpdatedWithStart>
  /** POST /workflow/run: start, then wait for the result (408 when the deadline passes first). */
  runWorkflow: (body: RunWorkflowBody, signal: AbortSignal, options?: Omit<StartOptions, 'signal'>) => Promise<WorkflowResult>
  /** The result of the last run of the chain that starts with `run`, or the run open at the deadline. */
  waitForResult: (run: RunRef, input: unknown, wait: CloseWait) => Promise<WorkflowResult | StillOpen>
}

export function createStarts (deps: StartDeps): Starts {
  return {
    catalogOf: (body) => catalogOf(deps, body),
    checkedWorkflow: async (catalog, workflowName, input, signal) => await checkedWorkflow(deps, catalog, workflowName, input, signal),
    startWorkflow: async (body, options) => await startWorkflow(deps, body, options),
    updateWithStart: async (body, options) => await updateWithStart(deps, body, options),
    runWorkflow: async (body, signal, options) => await runWorkflow(deps, body, signal, options),
    waitForResult: async (run, input, wait) => await waitForResult(deps, run, input, wait)
  }
}
