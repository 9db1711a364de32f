/**
 * A Temporal failure chain as the API and traces show it: names and messages only. Stacks,
 * details payloads and worker identities never leave Flowport. Used by the API's results and by
 * execution traces, so a failure reads the same in both.
 */
import {
  ActivityFailure, ApplicationFailure, CancelledFailure, ChildWorkflowFailure, ServerFailure, TerminatedFailure, TimeoutFailure
} from '@temporalio/common'

export interface FailureCause {
  name: string
  message: string
  cause: FailureCause | null
  [extra: string]: unknown
}

export interface ErrorDetails {
  message: string | null
  name: string | null
  retryable: boolean | null
  activityId: string | null
  cause: FailureCause | null
}

/** Deeper chains are cut here: a cycle or a runaway wrapper must not blow up a response. */
const MAX_DEPTH = 20

function describeLevel (err: Error): FailureCause {
  const level: FailureCause = { name: err.name || 'Error', message: err.message ?? '', cause: null }
  if (err instanceof ApplicationFailure) {
    // An untyped application error (Python's `ApplicationError(msg)`, Go's `errors.New`) has an
    // empty type on the wire: named `Error` however it was decoded (a codec's copy loses the '').
    level.name = err.type || 'Error'
    if (typeof err.nonRetryable === 'boolean') level.retryable = !err.nonRetryable
  } else if (err instanceof ActivityFailure) {
    level.name = 'ActivityFailure'
    level.activityId = err.activityType
  } else if (err instanceof ChildWorkflowFailure) {
    level.name = 'ChildWorkflowFailure'
    level.workflowName = err.workflowType
    level.workflowId = err.execution.workflowId
  } else if (err instanceof TimeoutFailure) {
    level.name = 'TimeoutFailure'
    if (err.timeoutType) level.timeoutType = err.timeoutType
  } else if (err instanceof CancelledFailure) {
    // One spelling of cancellation in the whole API.
    level.name = 'CanceledFailure'
  } else if (err instanceof TerminatedFailure) {
    level.name = 'TerminatedFailure'
  } else if (err instanceof ServerFailure) {
    level.name = 'ServerFailure'
    level.retryable = !err.nonRetryable
  }
  return level
}

function chainOf (err: Error, limit: number): Error[] {
  const levels: Error[] = []
  for (let e: unknown = err; e instanceof Error && levels.length < limit; e = e.cause) levels.push(e)
  return levels
}

/** The chain as nested `{name, message, cause}` levels, from the outermost failure down. */
export function sanitizeChain (err: Error): FailureCause {
  const levels = chainOf(err, MAX_DEPTH + 1)
  let cause: FailureCause | null = levels.length > MAX_DEPTH ? { name: 'Error', message: 'Cause chain too deep', cause: null } : null
  for (const level of levels.slice(0, MAX_DEPTH).reverse()) cause = { ...describeLevel(level), cause }
  return cause as FailureCause
}

/**
 * `errorDetails` of a failure. The name and message come from the outermost application error
 * (what workflow or step code threw; a wrapper such as ActivityFailure only says where), else from
 * the deepest level (e.g. a timeout). `activityId` is the first step on the way down.
 */
export function failureDetails (err: Error): ErrorDetails {
  const levels = chainOf(err, MAX_DEPTH)
  const app = levels.find((e): e is ApplicationFailure => e instanceof ApplicationFailure)
  const chosen = app ?? levels[levels.length - 1] ?? err
  const activity = levels.find((e): e is ActivityFailure => e instanceof ActivityFailure)
  const server = levels.find((e): e is ServerFailure => e instanceof ServerFailure)
  let retryable: boolean | null = null
  if (app && typeof app.nonRetryable === 'boolean') retryable = !app.nonRetryable
  else if (server) retryable = !server.nonRetryable
  return {
    message: chosen.message || null,
    name: describeLevel(chosen).name,
    retryable,
    activityId: activity?.activityType ?? null,
    cause: sanitizeChain(err)
  }
}

/** `errorDetails` of a run that ended without a failure of its own (canceled, terminated, timed out). */
export function closeDetails (name: string, message: string): ErrorDetails {
  return { message, name, retryable: false, activityId: null, cause: null }
}
