/**
 * Builds a run's trace from its history (the engine's record, the same on every worker and after
 * every replay) and the failed attempts workers recorded (the engine keeps only the last attempt
 * of a retried step). A pure function of both: any worker or API replica that assembles the same
 * closed run writes the same document.
 */
import type { temporal } from '@temporalio/proto'
// @temporalio/proto is CommonJS: its named exports are not visible to ESM.
import protoRoot from '@temporalio/proto'
import { defaultFailureConverter, defaultPayloadConverter } from '@temporalio/common'
import { tsToDate } from '@temporalio/common/lib/time.js'
import { failureDetails } from '../failure-chain.js'
import { isLocalStepResult, localStepMarkerData } from '../local-step.js'
import { STARTED_BY_MEMO_KEY } from '../contract.js'
import { stepsOf, type Step } from '../steps.js'
import { ATTEMPTS_KEPT } from './layout.js'
import {
  TRACE_VERSION, type AttemptRecord, type Trace, type TraceAttempt, type TraceError, type TraceNode, type TraceOutcome, type TraceWorkflow
} from './schema.js'

type HistoryEvent = temporal.api.history.v1.IHistoryEvent
const RESET_CAUSE = protoRoot.temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW
type Payloads = temporal.api.common.v1.IPayloads
type Failure = temporal.api.failure.v1.IFailure
type Marker = temporal.api.history.v1.IMarkerRecordedEventAttributes

export interface AssembleOptions {
  /** The run the history belongs to (a reset run's history names its original run id, not its own). */
  run: { workflowId: string, runId: string }
  events: HistoryEvent[]
  attempts: AttemptRecord[]
  /** Whether an activity type (`workflow#name`) is an evaluator; anything else is a step. */
  isEvaluator: (activityType: string) => boolean
  maxValueBytes: number
}

const PREVIEW_CHARS = 1024

/** The value, or a marker saying what was cut when its JSON is larger than the limit. */
export function capValue (value: unknown, limit: number): unknown {
  if (value === null || typeof value !== 'object') {
    if (typeof value !== 'string' || value.length * 3 <= limit) return value ?? null
  }
  const json = JSON.stringify(value) ?? 'null'
  const bytes = Buffer.byteLength(json)
  if (bytes <= limit) return value
  return { $truncated: { bytes, limit, preview: json.slice(0, PREVIEW_CHARS) } }
}

const iso = (ts: HistoryEvent['eventTime']) => ts ? tsToDate(ts).toISOString() : null

function decode (payloads: Payloads | null | undefined): unknown {
  const first = payloads?.payloads?.[0]
  if (!first) return null
  try {
    return defaultPayloadConverter.fromPayload(first as never) ?? null
  } catch {
    return { $undecodable: 'a payload the default converter cannot read (binary, encrypted or protobuf)' }
  }
}

/** The key id the run's memo names as its starter (STARTED_BY_MEMO_KEY); null when there is none. */
function startedByOf (memo: temporal.api.common.v1.IMemo | null | undefined): string | null {
  const payload = memo?.fields?.[STARTED_BY_MEMO_KEY]
  if (!payload) return null
  const keyId = decode({ payloads: [payload] })
  return typeof keyId === 'string' ? keyId : null
}

function traceError (failure: Failure | null | undefined): TraceError | null {
  if (!failure) return null
  const details = failureDetails(defaultFailureConverter.failureToError(failure as never, defaultPayloadConverter))
  return { name: details.name ?? 'Error', message: details.message ?? '', retryable: details.retryable, cause: details.cause }
}

const closeError = (name: string, message: string): TraceError => ({ name, message, retryable: false, cause: null })

/** A failed local step's outcome, from the kind of failure its marker holds. */
function localOutcome (failure: Failure): TraceOutcome {
  if (failure.canceledFailureInfo) return 'canceled'
  if (failure.timeoutFailureInfo) return 'timed_out'
  return 'failed'
}

/** What the event that ended a step or child says beyond its status (steps.ts): its output, or its error. */
function endingOf (end: HistoryEvent | undefined): { output: unknown, error: TraceError | null } {
  const output = decode(end?.activityTaskCompletedEventAttributes?.result ?? end?.childWorkflowExecutionCompletedEventAttributes?.result)
  const failed = end?.activityTaskFailedEventAttributes ?? end?.activityTaskTimedOutEventAttributes ?? end?.childWorkflowExecutionFailedEventAttributes
  const startFailed = end?.startChildWorkflowExecutionFailedEventAttributes
  let error: TraceError | null = null
  if (failed) error = traceError(failed.failure)
  else if (end?.activityTaskCanceledEventAttributes) error = closeError('CanceledFailure', 'The step was canceled')
  else if (startFailed) error = closeError('StartChildWorkflowExecutionFailed', `The child could not start (cause ${String(startFailed.cause)})`)
  else if (end?.childWorkflowExecutionCanceledEventAttributes) error = closeError('CanceledFailure', 'The child run was canceled')
  else if (end?.childWorkflowExecutionTimedOutEventAttributes) error = closeError('TimeoutFailure', 'The child run timed out')
  else if (end?.childWorkflowExecutionTerminatedEventAttributes) error = closeError('TerminatedFailure', 'The child run was terminated')
  return { output, error }
}

export function assembleTrace ({ run, events, attempts, isEvaluator, maxValueBytes }: AssembleOptions): Trace {
  const cap = (value: unknown) => capValue(value, maxValueBytes)
  const first = events[0]
  const started = first?.workflowExecutionStartedEventAttributes
  if (!started) throw new Error('history does not begin with WorkflowExecutionStarted')
  const { workflowId, runId } = run
  const workflow: TraceWorkflow = {
    id: runId,
    name: started.workflowType?.name ?? '',
    workflowId,
    runId,
    catalog: started.taskQueue?.name ?? '',
    parent: started.parentWorkflowExecution?.workflowId
      ? { workflowId: started.parentWorkflowExecution.workflowId, runId: started.parentWorkflowExecution.runId ?? '' }
      : null,
    previousRunId: started.continuedExecutionRunId || null,
    startedBy: startedByOf(started.memo),
    nextRunId: null,
    status: 'running',
    startTime: iso(first.eventTime),
    closeTime: null,
    stopRequestedTime: null,
    resetFrom: null,
    workflowTaskFailure: null,
    input: cap(decode(started.input)),
    output: null,
    error: null
  }

  for (const event of events) {
    const time = iso(event.eventTime)
    const a = event
    if (a.workflowExecutionCancelRequestedEventAttributes) {
      workflow.stopRequestedTime ??= time
    } else if (a.workflowTaskFailedEventAttributes) {
      // A reset marks its point with this failure; a history may hold copies of earlier resets' marks.
      const { cause, baseRunId, newRunId } = a.workflowTaskFailedEventAttributes
      if (cause === RESET_CAUSE) {
        if (newRunId === runId && baseRunId) workflow.resetFrom = { runId: baseRunId, eventId: Number(event.eventId), time }
      } else {
        workflow.workflowTaskFailure = { message: a.workflowTaskFailedEventAttributes.failure?.message ?? 'the workflow task failed', time }
      }
    } else if (a.workflowTaskCompletedEventAttributes) {
      workflow.workflowTaskFailure = null
    } else {
      closeRun(workflow, event, cap)
    }
  }

  const byId = new Map(events.map((e) => [String(e.eventId), e]))
  const eventOf = (id: string | null) => id === null ? undefined : byId.get(id)
  /** A call workflow code made (step or evaluator, local step, child), as the fold of the history (steps.ts) tells it. */
  const nodeOf = (step: Step): TraceNode => {
    const begin = eventOf(step.id)
    const { output, error } = endingOf(eventOf(step.endId))
    const node: TraceNode = {
      id: step.kind === 'child' ? `${runId}/child/${step.id}` : `${runId}/${step.activityId ?? step.id}`,
      kind: step.kind === 'child' ? 'child' : isEvaluator(step.type) ? 'evaluator' : 'step',
      name: step.name,
      type: step.type,
      input: cap(decode(begin?.activityTaskScheduledEventAttributes?.input ?? begin?.startChildWorkflowExecutionInitiatedEventAttributes?.input)),
      child: step.child && { ...step.child, workflowName: step.name },
      phase: step.cleanup ? 'cleanup' : 'run',
      status: step.status === 'scheduled' || step.status === 'running' ? 'running' : step.status,
      scheduledTime: iso(begin?.eventTime),
      startTime: iso(eventOf(step.startId)?.eventTime),
      endTime: iso(eventOf(step.endId)?.eventTime),
      output: cap(output),
      error,
      attempts: [],
      evaluation: null
    }
    return step.local && begin?.markerRecordedEventAttributes ? localNode(node, step, begin.markerRecordedEventAttributes) : node
  }
  /**
   * A local step: one marker when it finished (the engine saw nothing before). Its input and
   * times come from its result, or for a failed one from the worker's record of the last attempt.
   * Another SDK's local activity (its step named by its whole type, ../steps.ts) records its bare output, its input only
   * where the SDK does (Java's `input` detail), and the marker's time alone.
   */
  const localNode = (node: TraceNode, step: Step, marker: Marker): TraceNode => {
    const decoded = decode(marker.details?.result)
    const flowport = step.name !== step.type
    const result = flowport && isLocalStepResult(decoded) ? decoded : null
    const output = flowport ? result?.output : decoded
    const records = attempts.filter((r) => r.activityId === step.activityId).sort((a, b) => a.attempt - b.attempt)
    const lastRecord = records.find((r) => r.attempt === step.attempt)
    const startTime = result?.startTime ?? lastRecord?.startTime ?? null
    return Object.assign(node, {
      input: cap(result !== null ? result.input : lastRecord?.input ?? (flowport ? null : decode(marker.details?.input))),
      // Like a regular step's: when the first attempt began (the last attempt's start is `startTime`).
      scheduledTime: records[0]?.startTime ?? startTime ?? node.scheduledTime,
      startTime,
      endTime: result?.endTime ?? lastRecord?.endTime ?? node.endTime,
      status: marker.failure ? localOutcome(marker.failure) : 'completed',
      output: marker.failure ? null : cap(output ?? null),
      error: traceError(marker.failure)
    })
  }

  const calls = stepsOf(events, { localStep: localStepMarkerData }).map((step) => ({ step, node: nodeOf(step) }))
  finishOpenNodes(calls.map((c) => c.node), workflow)
  const recorded = groupAttempts(attempts)
  const nodes = calls.map(({ step, node }) => {
    const lastFailure = traceError(eventOf(step.startId)?.activityTaskStartedEventAttributes?.lastFailure)
    if (step.kind === 'step') {
      const { attempts, omitted } = attemptsOf(node, recorded.get(step.activityId ?? ''), step.attempt ?? undefined, lastFailure)
      node.attempts = attempts
      if (omitted > 0) node.attemptsOmitted = omitted
    }
    if (node.kind === 'evaluator' && node.status === 'completed') node.evaluation = evaluationOf(node.output)
    return node
  })
  return {
    version: TRACE_VERSION,
    workflow,
    nodes,
    evaluations: nodes.flatMap((n) => n.evaluation === null
      ? []
      : [{ nodeId: n.id, evaluator: n.name, score: n.evaluation.score, reasoning: n.evaluation.reasoning ?? null }])
  }
}

/** Applies a close event of the run itself; other events are ignored. */
function closeRun (workflow: TraceWorkflow, event: HistoryEvent, cap: (v: unknown) => unknown): void {
  const time = iso(event.eventTime)
  const done = (status: TraceWorkflow['status'], error: TraceError | null, nextRunId?: string | null) =>
    Object.assign(workflow, { status, error, closeTime: time, nextRunId: nextRunId || null })
  if (event.workflowExecutionCompletedEventAttributes) {
    const { result, newExecutionRunId } = event.workflowExecutionCompletedEventAttributes
    done('completed', null, newExecutionRunId)
    workflow.output = cap(decode(result))
  } else if (event.workflowExecutionFailedEventAttributes) {
    const { failure, newExecutionRunId } = event.workflowExecutionFailedEventAttributes
    done('failed', traceError(failure), newExecutionRunId)
  } else if (event.workflowExecutionCanceledEventAttributes) {
    done('canceled', closeError('CanceledFailure', 'Workflow run was canceled'))
  } else if (event.workflowExecutionTerminatedEventAttributes) {
    const { reason } = event.workflowExecutionTerminatedEventAttributes
    done('terminated', closeError('TerminatedFailure', reason ? `Workflow run was terminated: ${reason}` : 'Workflow run was terminated'))
  } else if (event.workflowExecutionTimedOutEventAttributes) {
    const { newExecutionRunId } = event.workflowExecutionTimedOutEventAttributes
    done('timed_out', closeError('TimeoutFailure', 'Workflow run timed out (its execution or run timeout elapsed)'), newExecutionRunId)
  } else if (event.workflowExecutionContinuedAsNewEventAttributes) {
    done('continued_as_new', null, event.workflowExecutionContinuedAsNewEventAttributes.newExecutionRunId)
  }
}

/** A call still open when its run closed shares the run's fate (the engine abandons it). */
function finishOpenNodes (nodes: TraceNode[], workflow: TraceWorkflow): void {
  if (workflow.status === 'running') return
  const fate: TraceOutcome = workflow.status === 'terminated' || workflow.status === 'timed_out' ? workflow.status : 'canceled'
  for (const node of nodes) {
    if (node.status !== 'running') continue
    Object.assign(node, { status: fate, endTime: workflow.closeTime, error: closeError('RunClosedFailure', `The run closed (${workflow.status}) before this ${node.kind} finished`) })
  }
}

function groupAttempts (records: AttemptRecord[]): Map<string, Map<number, AttemptRecord>> {
  const byActivity = new Map<string, Map<number, AttemptRecord>>()
  for (const record of records) {
    const attempts = byActivity.get(record.activityId) ?? new Map<number, AttemptRecord>()
    attempts.set(record.attempt, record)
    byActivity.set(record.activityId, attempts)
  }
  return byActivity
}

/**
 * Attempts 1…N, of many the first and the last ATTEMPTS_KEPT (the records kept, layout.ts) and
 * how many in between are left out. The last one (N, from the engine's started event) carries the
 * node's outcome; earlier ones come from the workers' records. An attempt nobody could record (its
 * worker died, or it hit its timeout) stays, marked `unknown`, with the engine's last failure when
 * it is the one just before N.
 */
function attemptsOf (node: TraceNode, records: Map<number, AttemptRecord> | undefined, last: number | undefined, lastFailure: TraceError | null): { attempts: TraceAttempt[], omitted: number } {
  let highestRecorded = 0
  for (const n of records?.keys() ?? []) highestRecorded = Math.max(highestRecorded, n)
  const count = Math.max(last ?? 0, highestRecorded)
  const omitted = Math.max(0, count - 2 * ATTEMPTS_KEPT)
  const attempts: TraceAttempt[] = []
  for (let n = 1; n <= count; n++) {
    if (omitted > 0 && n === ATTEMPTS_KEPT + 1) n += omitted
    const record = records?.get(n)
    if (n === last) {
      attempts.push({ attempt: n, status: node.status, startTime: node.startTime, endTime: node.endTime, error: node.error })
    } else if (record !== undefined) {
      attempts.push({ attempt: n, status: record.status, startTime: record.startTime, endTime: record.endTime, error: record.error })
    } else {
      attempts.push({ attempt: n, status: 'unknown', startTime: null, endTime: null, error: last !== undefined && n === last - 1 ? lastFailure : null })
    }
  }
  return { attempts, omitted }
}

function evaluationOf (output: unknown): TraceNode['evaluation'] {
  const value = output as { score?: unknown, reasoning?: unknown } | null
  if (typeof value?.score !== 'number') return null
  return typeof value.reasoning === 'string' ? { score: value.score, reasoning: value.reasoning } : { score: value.score }
}
