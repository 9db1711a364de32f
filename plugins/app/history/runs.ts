/**
 * What history needs of the runs concept: a run as the engine describes it, its `workflow` frame,
 * and whether it needs attention (plugins/app/history/index.ts wires it).
 */
import type { Execution } from '../../../lib/execution.js'
import type { RunRef } from '../../../lib/run-history.js'
import type { HistoryWorkflow } from '../../../schemas/history.js'
import type { Attention } from '../../../schemas/reset.js'

export interface HistoryRuns {
  /** The run named, else the current run; a 404 when there is none. */
  describe: (ref: { workflowId: string, runId?: string, signal?: AbortSignal }) => Promise<Execution>
  historyWorkflowOf: (execution: Execution) => HistoryWorkflow
  /** Why an open run does not move (its workflow task keeps failing), or null. */
  attention: (run: RunRef, attempt: number | null | undefined) => Promise<Attention | null>
}
