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
import { localStepMarkerData, type LocalActivityMarkerData, type LocalStepResult } from '../local-step.js'
import { STARTED_BY_MEMO_KEY } from '../contract.js'
import { parseActivityType } from '../steps.js'
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

interface OpenNode extends TraceNode {
  activityId?: string
  lastAttempt?: number
  lastFailure?: TraceError | null
}

/** What a local step's marker says: the SDK's marker data, and the step's own result on success. */
interface LocalStep { data: LocalActivityMarkerData, result: LocalStepResult | null, failure: Failure | null }

function localStepOf (marker: Marker): LocalStep | null {
  const data = localStepMarkerData(marker)
  if (data === null) return null
  return { data, result: decode(marker.details?.result) as LocalStepResult | null, failure: marker.failure ?? null }
}

/** A failed local step's outcome, from the kind of failure its marker holds. */
function localOutcome (failure: Failure): TraceOutcome {
  if (failure.canceledFailureInfo) return 'canceled'
  if (failure.timeoutFailureInfo) return 'timed_out'
  return 'failed'
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

  const nodes: OpenNode[] = []
  const byEvent = new Map<string, OpenNode>()
  const scheduledBy = (id: unknown) => byEvent.get(String(id))
  /** A call workflow code made (scheduled step or evaluator, initiated child), open until its close event. */
  const call = (event: HistoryEvent, node: Pick<OpenNode, 'id' | 'kind' | 'name' | 'type' | 'child' | 'activityId'> & { input: Payloads | null | undefined }): OpenNode => {
    const open: OpenNode = {
      ...node,
      phase: workflow.stopRequestedTime === null ? 'run' : 'cleanup',
      status: 'running',
      scheduledTime: iso(event.eventTime),
      startTime: null,
      endTime: null,
      input: cap(decode(node.input)),
      output: null,
      error: null,
      attempts: [],
      evaluation: null
    }
    nodes.push(open)
    byEvent.set(String(event.eventId), open)
    return open
  }
  const close = (node: OpenNode | undefined, event: HistoryEvent, status: TraceOutcome, error: TraceError | null = null, output: unknown = null) => {
    if (!node) return
    Object.assign(node, { status, error, output: cap(output), endTime: iso(event.eventTime) })
  }

  /**
   * A local step: one marker when it finished (the engine saw nothing before). Its input and
   * times come from its result, or for a failed one from the worker's record of the last attempt.
   */
  const localNode = (event: HistoryEvent, { data, result, failure }: LocalStep) => {
    const type = data.activity_type
    const records = attempts.filter((r) => r.activityId === data.activity_id).sort((a, b) => a.attempt - b.attempt)
    const lastRecord = records.find((r) => r.attempt === data.attempt)
    const node = call(event, {
      id: `${runId}/${data.activity_id}`,
      kind: isEvaluator(type) ? 'evaluator' : 'step',
      name: parseActivityType(type).step,
      type,
      input: null,
      child: null,
      activityId: data.activity_id
    })
    const startTime = result?.startTime ?? lastRecord?.startTime ?? null
    Object.assign(node, {
      input: cap(result !== null ? result.input : lastRecord?.input ?? null),
      // Like a regular step's: when the first attempt began (the last attempt's start is `startTime`).
      scheduledTime: records[0]?.startTime ?? startTime ?? node.scheduledTime,
      startTime,
      lastAttempt: data.attempt
    })
    if (failure === null) close(node, event, 'completed', null, result?.output ?? null)
    else close(node, event, localOutcome(failure), traceError(failure))
    if (result !== null) node.endTime = result.endTime
    else if (lastRecord) node.endTime = lastRecord.endTime
  }

  for (const event of events) {
    const time = iso(event.eventTime)
    const a = event
    if (a.activityTaskScheduledEventAttributes) {
      const { activityId, activityType, input } = a.activityTaskScheduledEventAttributes
      const type = activityType?.name ?? ''
      call(event, {
        id: `${runId}/${activityId ?? event.eventId}`,
        kind: isEvaluator(type) ? 'evaluator' : 'step',
        name: parseActivityType(type).step,
        type,
        input,
        child: null,
        activityId: activityId ?? ''
      })
    } else if (a.activityTaskStartedEventAttributes) {
      const { scheduledEventId, attempt, lastFailure } = a.activityTaskStartedEventAttributes
      const node = scheduledBy(scheduledEventId)
      if (node) Object.assign(node, { startTime: time, lastAttempt: attempt ?? 1, lastFailure: traceError(lastFailure) })
    } else if (a.activityTaskCompletedEventAttributes) {
      const { scheduledEventId, result } = a.activityTaskCompletedEventAttributes
      close(scheduledBy(scheduledEventId), event, 'completed', null, decode(result))
    } else if (a.activityTaskFailedEventAttributes) {
      const { scheduledEventId, failure } = a.activityTaskFailedEventAttributes
      close(scheduledBy(scheduledEventId), event, 'failed', traceError(failure))
    } else if (a.activityTaskTimedOutEventAttributes) {
      const { scheduledEventId, failure } = a.activityTaskTimedOutEventAttributes
      close(scheduledBy(scheduledEventId), event, 'timed_out', traceError(failure))
    } else if (a.activityTaskCanceledEventAttributes) {
      const { scheduledEventId } = a.activityTaskCanceledEventAttributes
      close(scheduledBy(scheduledEventId), event, 'canceled', closeError('CanceledFailure', 'The step was canceled'))
    } else if (a.markerRecordedEventAttributes) {
      const local = localStepOf(a.markerRecordedEventAttributes)
      // A marker with a backoff is an attempt the SDK retries later, under the same activity id.
      if (local && local.data.backoff == null) localNode(event, local)
    } else if (a.startChildWorkflowExecutionInitiatedEventAttributes) {
      const { workflowId, workflowType, input } = a.startChildWorkflowExecutionInitiatedEventAttributes
      const name = workflowType?.name ?? ''
      call(event, {
        id: `${runId}/child/${String(event.eventId)}`,
        kind: 'child',
        name,
        type: name,
        input,
        child: { workflowId: workflowId ?? '', runId: null, workflowName: name }
      })
    } else if (a.startChildWorkflowExecutionFailedEventAttributes) {
      const { initiatedEventId, cause } = a.startChildWorkflowExecutionFailedEventAttributes
      close(scheduledBy(initiatedEventId), event, 'failed', closeError('StartChildWorkflowExecutionFailed', `The child could not start (cause ${String(cause)})`))
    } else if (a.childWorkflowExecutionStartedEventAttributes) {
      const { initiatedEventId, workflowExecution } = a.childWorkflowExecutionStartedEventAttributes
      const node = scheduledBy(initiatedEventId)
      if (node?.child) Object.assign(node, { startTime: time, child: { ...node.child, runId: workflowExecution?.runId ?? null } })
    } else if (a.childWorkflowExecutionCompletedEventAttributes) {
      const { initiatedEventId, result } = a.childWorkflowExecutionCompletedEventAttributes
      close(scheduledBy(initiatedEventId), event, 'completed', null, decode(result))
    } else if (a.childWorkflowExecutionFailedEventAttributes) {
      const { initiatedEventId, failure } = a.childWorkflowExecutionFailedEventAttributes
      close(scheduledBy(initiatedEventId), event, 'failed', traceError(failure))
    } else if (a.childWorkflowExecutionCanceledEventAttributes) {
      close(scheduledBy(a.childWorkflowExecutionCanceledEventAttributes.initiatedEventId), event, 'canceled', closeError('CanceledFailure', 'The child run was canceled'))
    } else if (a.childWorkflowExecutionTimedOutEventAttributes) {
      close(scheduledBy(a.childWorkflowExecutionTimedOutEventAttributes.initiatedEventId), event, 'timed_out', closeError('TimeoutFailure', 'The child run timed out'))
    } else if (a.childWorkflowExecutionTerminatedEventAttributes) {
      close(scheduledBy(a.childWorkflowExecutionTerminatedEventAttributes.initiatedEventId), event, 'terminated', closeError('TerminatedFailure', 'The child run was terminated'))
    } else if (a.workflowExecutionCancelRequestedEventAttributes) {
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

  finishOpenNodes(nodes, workflow)
  const recorded = groupAttempts(attempts)
  const finished: TraceNode[] = nodes.map(({ activityId, lastAttempt, lastFailure, ...node }) => {
    if (activityId !== undefined) node.attempts = attemptsOf(node, recorded.get(activityId), lastAttempt, lastFailure ?? null)
    if (node.kind === 'evaluator' && node.status === 'completed') node.evaluation = evaluationOf(node.output)
    return node
  })
  return {
    version: TRACE_VERSION,
    workflow,
    nodes: finished,
    evaluations: finished.flatMap((n) => n.evaluation === null
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
function finishOpenNodes (nodes: OpenNode[], workflow: TraceWorkflow): void {
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
 * Attempts 1…N. The last one (N, from the engine's started event) carries the node's outcome;
 * earlier ones come from the workers' records. An attempt nobody could record (its worker died,
 * or it hit its timeout) stays, marked `unknown`, with the engine's last failure when it is the
 * one just before N.
 */
function attemptsOf (node: TraceNode, records: Map<number, AttemptRecord> | undefined, last: number | undefined, lastFailure: TraceError | null): TraceAttempt[] {
  const highestRecorded = Math.max(0, ...(records?.keys() ?? []))
  const count = Math.max(last ?? 0, highestRecorded)
  const attempts: TraceAttempt[] = []
  for (let n = 1; n <= count; n++) {
    const record = records?.get(n)
    if (n === last) {
      attempts.push({ attempt: n, status: node.status, startTime: node.startTime, endTime: node.endTime, error: node.error })
    } else if (record !== undefined) {
      attempts.push({ attempt: n, status: record.status, startTime: record.startTime, endTime: record.endTime, error: record.error })
    } else {
      attempts.push({ attempt: n, status: 'unknown', startTime: null, endTime: null, error: last !== undefined && n === last - 1 ? lastFailure : null })
    }
  }
  return attempts
}

function evaluationOf (output: unknown): TraceNode['evaluation'] {
  const value = output as { score?: unknown, reasoning?: unknown } | null
  if (typeof value?.score !== 'number') return null
  return typeof value.reasoning === 'string' ? { score: value.score, reasoning: value.reasoning } : { score: value.score }
}
