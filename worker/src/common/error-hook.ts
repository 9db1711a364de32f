/**
 * What a package's `onError` hook receives (package.json `"flowport": {"onError": "<module>"}`;
 * worker/README.md, "Error hooks"). Plain data: a workflow's failure comes out of the workflow
 * sandbox, where no Error object survives the trip.
 */
import { failureDetails, type FailureCause } from '@flowport/core/failure'

/** What every event carries, whatever its source. */
export interface ErrorEventBase {
  /** Unique per event: a hook that forwards events can drop the ones it has seen. */
  eventId: string
  /** When the error happened (ISO 8601). */
  time: string
}

export interface ErrorInfo {
  name: string
  message: string
  /** The chain below it (e.g. an ActivityFailure's step error), names and messages only. */
  cause: FailureCause | null
  stack: string | null
}

/** What is said of `err`: worker-side for the hooks, and in the workflow sandbox for a failed run's sink. */
export function errorInfo (err: unknown): ErrorInfo {
  const error = err instanceof Error ? err : new Error(String(err))
  const details = failureDetails(error)
  return { name: details.name ?? error.name, message: details.message ?? '', cause: details.cause, stack: error.stack ?? null }
}

/** A step or evaluator attempt that failed (it may be retried: see `attempt` and the step's retry policy). */
export interface StepErrorEvent extends ErrorEventBase {
  source: 'step'
  workflowName: string
  workflowId: string
  runId: string
  step: string
  /** `<workflow>#<step>`. */
  activityType: string
  /** 1 on the first try. */
  attempt: number
  error: ErrorInfo
}

/** A run that failed (not one that was canceled, terminated or continued as new). */
export interface WorkflowErrorEvent extends ErrorEventBase {
  source: 'workflow'
  workflowName: string
  workflowId: string
  runId: string
  error: ErrorInfo
}

/** The worker's own trouble: a trace not written, the worker stopping on an engine error. */
export interface RuntimeErrorEvent extends ErrorEventBase {
  source: 'runtime'
  /** What failed, as the worker's log line says it. */
  message: string
  /** The run concerned, when there is one. */
  workflowId: string | null
  runId: string | null
  error: ErrorInfo | null
}

export type ErrorEvent = StepErrorEvent | WorkflowErrorEvent | RuntimeErrorEvent

/** What a hook gets beside the event. */
export interface ErrorHookContext {
  /** Aborted when the worker stops waiting for the hook (its timeout): stop sending, let go. */
  signal: AbortSignal
}

/**
 * A package's hook, exported as `onError` by the module its flag names: the errors of the package's
 * own workflows and the worker's runtime errors, off the run's path (worker/README.md, "Error hooks").
 */
export type ErrorHook = (event: ErrorEvent, context: ErrorHookContext) => void | Promise<void>
