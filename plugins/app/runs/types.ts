/**
 * The types the runs concept's files and its dependencies share, in a file that imports none of
 * them, so that no type reference goes round in a circle (deps.ts → closed-runs.ts → here).
 */
import type { WorkflowExecutionInfo } from '@temporalio/client'
import type { Outcome as CloseOutcome } from '@flowport/core/outcome'
import type { ResetPoint } from '../../../schemas/reset.js'
import type { TerminalStatus } from '@flowport/core/run'
import type { RunVersion } from '../engine/index.js'

export interface RunRef { workflowId: string, runId: string }

export interface DescribeOptions {
  workflowId: string
  /** Pins the run; absent = the latest run of the id. */
  runId?: string
  signal?: AbortSignal
}

export type Execution = Pick<WorkflowExecutionInfo, 'type' | 'workflowId' | 'runId' | 'taskQueue' | 'status' | 'historyLength' | 'startTime' | 'closeTime' | 'parentExecution' | 'memo'> &
  Partial<Pick<WorkflowExecutionInfo, 'executionTime' | 'typedSearchAttributes'>> & {
  /** The run a reset of this one made (the latest, when reset several times); null if never reset. */
    resetTo?: string | null
    /** Whether the engine records a reset of or into this run (its last reset time); only then is the history searched for the origin. */
    wasReset?: boolean
    /** Attempt of an open run's pending workflow task; above 1 the task failed or timed out before. */
    workflowTaskAttempt?: number | null
    /** Kept once read for a closed run (a run's origin never changes); undefined = not read yet. */
    resetFrom?: ResetPoint | null
    /** From a describe's versioning info; undefined for a listed run (then read from its search attributes). */
    runVersion?: RunVersion
  }

/** What a close event records, for a run that closed (core/src/outcome.ts). */
export type Outcome = Omit<CloseOutcome, 'status'> & { status: TerminalStatus }
