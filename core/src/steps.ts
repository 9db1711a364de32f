/**
 * A run's steps rebuilt from its history events: each call of a step or evaluator (the activity
 * `workflow#step`, or a local step's marker) and of a child workflow, with its state and attempt.
 * One reading for every place that shows or uses steps: the inspector (folding events as the SSE
 * stream delivers them), the CLI's live progress, the reset point and the trace.
 *
 * Pure and free of Node built-ins and of the Temporal SDK (the browser imports it): it reads the
 * engine's event objects and their JSON alike, by which `…EventAttributes` field an event carries.
 */
import { readLocalActivityMarker, type LocalStepMarker } from './local-markers.js'

// The markers of local activities (a step run with `options.local`, or another SDK's), whatever the SDK.
export { isLocalActivityMarker, type LocalStepMarker } from './local-markers.js'

/** The activity type a workflow's step or evaluator runs as. */
export const activityTypeOf = (workflow: string, step: string) => `${workflow}#${step}`

/** `workflow#step` → its workflow and step names (the user knows the step part). */
export function parseActivityType (activityType: string): { workflow: string, step: string } {
  const hash = activityType.indexOf('#')
  return { workflow: hash < 0 ? '' : activityType.slice(0, hash), step: activityType.slice(hash + 1) }
}

/**
 * The name of the step an activity type runs in a run of `workflowType`, for every reader (steps
 * below, reset, the attention's remedy, the trace, the inspector, the CLI): the `step` of
 * Flowport's `workflow#step` when `workflow` is the run's own type, or the run is one of Flowport's
 * own (`__flowport…`: an eval run calls the evaluators of the workflow it judges); otherwise the
 * whole type, as another SDK's worker names it (`charge#card`). A run started under an alias calls
 * its workflow's steps under the canonical name: those read whole too.
 */
export function stepNameOf (activityType: string, workflowType: string | null | undefined): string {
  const { workflow, step } = parseActivityType(activityType)
  return workflow === workflowType || workflowType?.startsWith('__flowport') === true ? step : activityType
}

export type StepStatus = 'scheduled' | 'running' | 'completed' | 'failed' | 'timed_out' | 'canceled' | 'terminated'

export interface Step {
  /** Id of the event that began the call: ActivityTaskScheduled, StartChildWorkflowExecutionInitiated, or a local step's marker. */
  id: string
  kind: 'step' | 'child'
  /** The activity type (`workflow#step`), or the child's workflow type. */
  type: string
  /** The step's name (stepNameOf), or the child's workflow type. */
  name: string
  /** The step's activity id (a local step's from its marker); null for a child. */
  activityId: string | null
  /** Run inside the workflow task (a local step): the engine recorded only its marker when it ended. */
  local: boolean
  status: StepStatus
  /** The attempt running or last run; null until the engine names one. */
  attempt: number | null
  /** Why the attempt before `attempt` failed, when the engine says so. */
  lastFailure: string | null
  /** The failure message of a call that ended in failure. */
  error: string | null
  /** Id of the event that started the attempt running or last run (ActivityTaskStarted, ChildWorkflowExecutionStarted); null until one did. */
  startId: string | null
  /** Id of the event that ended the call; null while it is open. */
  endId: string | null
  /** Called after the run was asked to stop (its cleanup). */
  cleanup: boolean
  /** The child run, for a child workflow. */
  child: { workflowId: string, runId: string | null } | null
  /** The time of the event that began the call, as the event carries it. */
  time: unknown
}

/** The steps of a run so far, by `Step.id` in the order they were called, whether the run was asked to stop, and its workflow type (once its first event is read). */
export interface Steps {
  steps: Map<string, Step>
  cancelRequested: boolean
  workflowType?: string
}

type Id = string | number | { toString: () => string } | null | undefined
interface Failure { message?: string | null, cause?: Failure | null }
interface Ending { scheduledEventId?: Id, initiatedEventId?: Id, failure?: Failure | null }
interface Marker { markerName?: string | null, failure?: Failure | null, details?: unknown }

/** A history event as far as steps go: the engine's object (ids as Long) or its JSON (ids as strings). */
export interface StepHistoryEvent {
  eventId?: Id
  eventTime?: unknown
  workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string | null } | null } | null
  activityTaskScheduledEventAttributes?: { activityId?: string | null, activityType?: { name?: string | null } | null } | null
  activityTaskStartedEventAttributes?: { scheduledEventId?: Id, attempt?: number | null, lastFailure?: Failure | null } | null
  activityTaskCompletedEventAttributes?: Ending | null
  activityTaskFailedEventAttributes?: Ending | null
  activityTaskTimedOutEventAttributes?: Ending | null
  activityTaskCanceledEventAttributes?: Ending | null
  startChildWorkflowExecutionInitiatedEventAttributes?: { workflowId?: string | null, workflowType?: { name?: string | null } | null } | null
  startChildWorkflowExecutionFailedEventAttributes?: Ending | null
  childWorkflowExecutionStartedEventAttributes?: { initiatedEventId?: Id, workflowExecution?: { workflowId?: string | null, runId?: string | null } | null } | null
  childWorkflowExecutionCompletedEventAttributes?: Ending | null
  childWorkflowExecutionFailedEventAttributes?: Ending | null
  childWorkflowExecutionCanceledEventAttributes?: Ending | null
  childWorkflowExecutionTimedOutEventAttributes?: Ending | null
  childWorkflowExecutionTerminatedEventAttributes?: Ending | null
  workflowExecutionCancelRequestedEventAttributes?: unknown
  markerRecordedEventAttributes?: Marker | null
}

export interface StepOptions {
  /**
   * Reads a local step's marker; null for any other marker. Default: the marker's `details.data`
   * as JSON carries it once decoded (`[{activity_type, attempt, …}]`); the engine's own objects
   * hold it as a payload (core/src/local-step.ts, localStepMarkerData, decodes that).
   */
  localStep?: (marker: Marker) => LocalStepMarker | null
}

/** A local step's marker data from a marker whose details are decoded JSON (any SDK's layout, ./local-markers.ts); null for any other marker. */
export function localStepMarkerOf (marker: Marker | null | undefined): LocalStepMarker | null {
  const details = marker?.details as Record<string, unknown> | null | undefined
  return readLocalActivityMarker(marker?.markerName, (key) => {
    const values = details?.[key]
    return Array.isArray(values) ? values[0] as unknown : undefined
  })
}

const ENDINGS = [
  ['activityTaskCompletedEventAttributes', 'completed'],
  ['activityTaskFailedEventAttributes', 'failed'],
  ['activityTaskTimedOutEventAttributes', 'timed_out'],
  ['activityTaskCanceledEventAttributes', 'canceled'],
  ['startChildWorkflowExecutionFailedEventAttributes', 'failed'],
  ['childWorkflowExecutionCompletedEventAttributes', 'completed'],
  ['childWorkflowExecutionFailedEventAttributes', 'failed'],
  ['childWorkflowExecutionCanceledEventAttributes', 'canceled'],
  ['childWorkflowExecutionTimedOutEventAttributes', 'timed_out'],
  ['childWorkflowExecutionTerminatedEventAttributes', 'terminated']
] as const

const idOf = (id: Id) => String(id ?? '')

const newStep = (event: StepHistoryEvent, kind: Step['kind'], type: string, cleanup: boolean, workflowType?: string): Step => ({
  id: idOf(event.eventId),
  kind,
  type,
  name: kind === 'step' ? stepNameOf(type, workflowType) : type,
  activityId: null,
  local: false,
  status: 'scheduled',
  attempt: null,
  lastFailure: null,
  error: null,
  startId: null,
  endId: null,
  cleanup,
  child: null,
  time: event.eventTime
})

/** The id of the call an event belongs to (the call's own id for an event that begins one); undefined for an event of no call. */
export function stepIdOf (event: StepHistoryEvent, options: StepOptions = {}): string | undefined {
  if (event.activityTaskScheduledEventAttributes ?? event.startChildWorkflowExecutionInitiatedEventAttributes) return idOf(event.eventId)
  if (event.markerRecordedEventAttributes) return (options.localStep ?? localStepMarkerOf)(event.markerRecordedEventAttributes) === null ? undefined : idOf(event.eventId)
  if (event.activityTaskStartedEventAttributes) return idOf(event.activityTaskStartedEventAttributes.scheduledEventId)
  if (event.childWorkflowExecutionStartedEventAttributes) return idOf(event.childWorkflowExecutionStartedEventAttributes.initiatedEventId)
  for (const [field] of ENDINGS) {
    const ending = event[field]
    if (ending) return idOf(ending.scheduledEventId ?? ending.initiatedEventId)
  }
  return undefined
}

/** Applies `events`, in order, to `state`; returns a new state (`state` and its steps are left as they were). */
export function foldSteps (state: Steps, events: Iterable<StepHistoryEvent>, options: StepOptions = {}): Steps {
  const steps = new Map(state.steps)
  let cancel = state.cancelRequested
  let workflowType = state.workflowType
  const update = (id: string, change: Partial<Step>) => {
    const step = steps.get(id)
    if (step) steps.set(id, { ...step, ...change })
  }
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes
    const initiated = event.startChildWorkflowExecutionInitiatedEventAttributes
    const started = event.activityTaskStartedEventAttributes
    const childStarted = event.childWorkflowExecutionStartedEventAttributes
    if (event.workflowExecutionStartedEventAttributes) {
      workflowType = event.workflowExecutionStartedEventAttributes.workflowType?.name ?? undefined
    } else if (event.workflowExecutionCancelRequestedEventAttributes) {
      cancel = true
    } else if (scheduled) {
      const step = newStep(event, 'step', scheduled.activityType?.name ?? '?', cancel, workflowType)
      steps.set(step.id, { ...step, activityId: scheduled.activityId ?? null })
    } else if (initiated) {
      const step = newStep(event, 'child', initiated.workflowType?.name ?? '?', cancel)
      steps.set(step.id, { ...step, child: { workflowId: initiated.workflowId ?? '', runId: null } })
    } else if (started) {
      const id = idOf(started.scheduledEventId)
      update(id, { status: 'running', attempt: started.attempt ?? steps.get(id)?.attempt ?? null, lastFailure: started.lastFailure?.message ?? null, startId: idOf(event.eventId) })
    } else if (childStarted) {
      const id = idOf(childStarted.initiatedEventId)
      const child = steps.get(id)?.child
      update(id, { status: 'running', startId: idOf(event.eventId), child: { workflowId: childStarted.workflowExecution?.workflowId ?? child?.workflowId ?? '', runId: childStarted.workflowExecution?.runId ?? null } })
    } else if (event.markerRecordedEventAttributes) {
      const marker = event.markerRecordedEventAttributes
      const local = (options.localStep ?? localStepMarkerOf)(marker)
      // A marker with a backoff is an attempt the SDK retries later, under the same activity id.
      if (local === null || local.backoff != null) continue
      const step = newStep(event, 'step', local.activity_type, cancel, workflowType)
      steps.set(step.id, { ...step, activityId: local.activity_id ?? null, local: true, status: marker.failure ? 'failed' : 'completed', attempt: local.attempt ?? null, error: marker.failure?.message ?? null, endId: step.id })
    } else {
      for (const [field, status] of ENDINGS) {
        const ending = event[field]
        if (ending) update(idOf(ending.scheduledEventId ?? ending.initiatedEventId), { status, error: ending.failure?.message ?? null, endId: idOf(event.eventId) })
      }
    }
  }
  return { steps, cancelRequested: cancel, workflowType }
}

/** A run's steps from its history, in the order they were called. */
export const stepsOf = (events: Iterable<StepHistoryEvent>, options: StepOptions = {}): Step[] =>
  [...foldSteps({ steps: new Map(), cancelRequested: false }, events, options).steps.values()]

/** Whether a call ended in failure (failed or timed out; a canceled or terminated one was stopped). */
export const endedInFailure = (step: Step) => step.status === 'failed' || step.status === 'timed_out'
