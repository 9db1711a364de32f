/**
 * The control service: acting on one run (stop, terminate, reset) and talking to it (signals,
 * queries, updates, and where an accepted update stands). Every call is pinned to the run the runs
 * service names first, and the answer names that run.
 */
import type { ResetResult } from '../../../schemas/reset.js'
import type { StopResult, TerminateResult } from '../../../schemas/control.js'
import type { UpdateState } from '../../../schemas/workflow.js'
import { stopRun, terminateRun, type ControlCall } from './stop.js'
import { runQuery, runUpdate, sendSignal, startUpdate, updateFailure, type HandlerCall, type UpdateAttempt } from './handlers.js'
import { readUpdate, type UpdateRef } from './update-state.js'
import { resetRun, type ResetCall } from './reset.js'
import type { ControlDeps } from './deps.js'

type RunRef = { workflowId: string, runId: string }

export interface Control {
  stopRun: (call: ControlCall & { terminateAfterMs?: number, reason?: string }) => Promise<StopResult>
  terminateRun: (call: ControlCall & { reason?: string }) => Promise<TerminateResult>
  resetRun: (call: ResetCall) => Promise<ResetResult>
  sendSignal: (call: HandlerCall) => Promise<RunRef>
  runQuery: (call: HandlerCall) => Promise<RunRef & { result: unknown }>
  runUpdate: (call: HandlerCall) => Promise<RunRef & { updateId: string, result: unknown }>
  /** `Prefer: respond-async`: answers once the workflow accepted the update. */
  startUpdate: (call: HandlerCall) => Promise<RunRef & { updateId: string }>
  /** The API error of a failed update: rejected by its validator, or failed in its handler. */
  updateFailure: (err: unknown, attempt: UpdateAttempt) => Promise<unknown>
  readUpdate: (ref: UpdateRef) => Promise<UpdateState>
}

export function createControl (deps: ControlDeps): Control {
  return {
    stopRun: async (call) => await stopRun(deps, call),
    terminateRun: async (call) => await terminateRun(deps, call),
    resetRun: async (call) => await resetRun(deps, call),
    sendSignal: async (call) => await sendSignal(deps, call),
    runQuery: async (call) => await runQuery(deps, call),
    runUpdate: async (call) => await runUpdate(deps, call),
    startUpdate: async (call) => await startUpdate(deps, call),
    updateFailure: async (err, attempt) => await updateFailure(deps, err, attempt),
    readUpdate: async (ref) => await readUpdate(deps, ref)
  }
}
