/** Imports none of the runs files, so no type reference goes round in a circle. */
import type { WorkflowExecutionInfo } from '@temporalio/client'
import type { Outcome as CloseOutcome } from '@flowport/core/outcome'
import type { ResetPoint } from '../../../schemas/reset.js'
import type { TerminalStatus } from '@flowport/core/run'
import type { RunVersion } from '../engine/index.js'

export interface DescribeOptions {
  workflowId: string
  runId?: string
  signal?: AbortSignal
}

export type Execution = Pick<WorkflowExecutionInfo, 'type' | 'workflowId' | 'runId' | 'taskQueue' | 'status' | 'historyLength' | 'startTime' | 'closeTime' | 'parentExecution' | 'memo'> &
  Partial<Pick<WorkflowExecutionInfo, 'executionTime' | 'typedSearchAttributes'>> & {
  /** The latest, when reset several times. */
    resetTo?: string | null
    /** Only then is the history searched for the origin. */
    wasReset?: boolean
    /** Above 1 the task failed or timed out before. */
    workflowTaskAttempt?: number | null
    resetFrom?: ResetPoint | null
    /** Undefined for a listed run (read from its search attributes). */
    runVersion?: RunVersion
  }

export type Outcome = Omit<CloseOutcome, 'status'> & { status: TerminalStatus }
