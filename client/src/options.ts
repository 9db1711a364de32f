/**
 * The options of FlowportClient's methods (docs/client.md), in a file of their own: the stream
 * modules (watch-runs.ts) take the runs filters too, and import them from here, not from client.ts.
 */
import type { OverlapPolicy, ResetFrom, RunsQuery } from './types.js'

export interface CallOptions { signal?: AbortSignal }
/** A change of where new runs go: `allowNoPollers` sends them to a version none of whose workers polls now. */
export interface RoutingOptions { allowNoPollers?: boolean }
/**
 * A change of a worker deployment: `ifMatch` is the deployment's ETag as read (`readDeployment`);
 * the change answers PreconditionFailedError (412), and changes nothing, when someone changed it since.
 */
export interface DeploymentChangeOptions extends CallOptions { ifMatch?: string }
export interface RunOptions extends CallOptions {
  workflowId?: string
  catalog?: string
  /** How long `/workflow/run` waits, in milliseconds; past it: WorkflowTimeoutError (the run goes on). */
  timeout?: number
  /** Start with an input uploaded by `uploadInput` instead of `input` (which is then not sent). */
  inputRef?: string
  /** Sent as `Idempotency-Key`: a retry with the same key and arguments waits for the run the first call started. */
  idempotencyKey?: string
}
export interface StartOptions extends CallOptions {
  workflowId?: string
  catalog?: string
  /** Start the run this much later: `"15m"`-style, or milliseconds. */
  startDelay?: string | number
  /** Start with an input uploaded by `uploadInput` instead of `input` (which is then not sent). */
  inputRef?: string
  /** Sent as `Idempotency-Key`: a retry with the same key and arguments answers the run the first call started. */
  idempotencyKey?: string
}
export interface UpdateWithStartOptions extends CallOptions {
  /** The session's id: an open run under it takes the update, otherwise a run starts with it. */
  workflowId: string
  catalog?: string
}
/**
 * Sent as `If-Match`: the run the caller saw, as a run id or a status ETag. The call answers
 * PreconditionFailedError (412), and does nothing, when the run it would act on is another one.
 */
export interface PreconditionOptions extends CallOptions { ifMatch?: string }
export interface RunIdOptions extends CallOptions { runId?: string }
export interface StopOptions extends RunIdOptions, PreconditionOptions { terminateAfterMs?: number, reason?: string }
export interface TerminateOptions extends RunIdOptions, PreconditionOptions { reason?: string }
export interface VersioningOptions extends RunIdOptions, PreconditionOptions {}
export interface ResetOptions extends RunIdOptions { from?: ResetFrom, reason?: string, reapply?: 'all' | 'signals' | 'updates' | 'none' }
export interface RunsFilters extends CallOptions {
  workflowName?: string
  status?: RunsQuery['status']
  catalog?: string
  /** ISO-8601 date-time (or a Date). */
  startedAfter?: string | Date
  startedBefore?: string | Date
  /** Only runs started by this schedule. */
  scheduleId?: string
  /** Only runs on this worker deployment version, `<deploymentName>:<buildId>`. */
  version?: string
  pageSize?: number
}
export interface SchedulesFilters extends CallOptions { workflowName?: string, catalog?: string, pageSize?: number }
export interface BackfillOptions extends CallOptions { overlap?: OverlapPolicy }
