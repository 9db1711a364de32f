/**
 * Where to reset a run, in the user's words (a step name, "the step that failed", "the start"),
 * turned into the engine's: the id of a workflow task event of the run's history. A reset to a
 * workflow task's completion keeps every event before it and runs the task again, so the commands
 * that task issued (scheduling the step) are issued anew and everything recorded earlier (the
 * results of earlier steps) is replayed, not run again. docs/reset.md tells the whole story.
 */
import type { temporal } from '@temporalio/proto'
import type { ResetFrom } from '../schemas/reset.js'
import { ApiError } from './api-error.js'
import type { RunRef } from './run-history.js'

type HistoryEvent = temporal.api.history.v1.IHistoryEvent
type Failure = temporal.api.failure.v1.IFailure

export interface ResolvedResetPoint {
  /** The WorkflowTaskCompleted (or, for `start`, any task-finishing) event the new run continues from. */
  eventId: number
  /** The first step scheduled after the point in the old run: the first that runs again; null when none was. */
  step: string | null
}

interface ScheduledStep { name: string, eventId: number }

const idOf = (event: HistoryEvent) => Number(event.eventId)
/** An activity type is `workflow#step`; the user knows the step part. */
const stepName = (activityType: string) => activityType.slice(activityType.indexOf('#') + 1)

export const resetNotPossible = (run: RunRef, reason: string) =>
  new ApiError(409, 'ResetNotPossibleError', `Run ${run.runId} of workflow ${run.workflowId} cannot be reset: ${reason}`, run)

function scheduledSteps (events: HistoryEvent[]): ScheduledStep[] {
  return events.flatMap((e) => {
    const type = e.activityTaskScheduledEventAttributes?.activityType?.name
    return type ? [{ name: stepName(type), eventId: idOf(e) }] : []
  })
}

/** The ActivityTaskScheduled event id of the step whose failure is the run's failure, if a step's is. */
function failingStepEventId (events: HistoryEvent[]): number | null {
  const closeFailure = events.find((e) => e.workflowExecutionFailedEventAttributes)?.workflowExecutionFailedEventAttributes?.failure
  for (let f: Failure | null | undefined = closeFailure; f; f = f.cause) {
    if (f.activityFailureInfo?.scheduledEventId != null) return Number(f.activityFailureInfo.scheduledEventId)
  }
  // A run that did not fail (or failed in workflow code after a step failed): its last failed step.
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]
    const scheduled = e.activityTaskFailedEventAttributes?.scheduledEventId ?? e.activityTaskTimedOutEventAttributes?.scheduledEventId
    if (scheduled != null) return Number(scheduled)
  }
  return null
}

/** The last workflow task completion before `eventId`: the task whose commands include that event's. */
function taskBefore (events: HistoryEvent[], eventId: number): number | null {
  let found: number | null = null
  for (const e of events) {
    if (idOf(e) >= eventId) break
    if (e.workflowTaskCompletedEventAttributes) found = idOf(e)
  }
  return found
}

/** The first step scheduled after `eventId`, or null. */
export function stepAfter (events: HistoryEvent[], eventId: number): string | null {
  return scheduledSteps(events).find((s) => s.eventId > eventId)?.name ?? null
}

function stepPoint (events: HistoryEvent[], run: RunRef, scheduledEventId: number, name: string): ResolvedResetPoint {
  const eventId = taskBefore(events, scheduledEventId)
  if (eventId === null) throw resetNotPossible(run, `no workflow task completed before step "${name}" was scheduled`)
  return { eventId, step: name }
}

function namedStep (events: HistoryEvent[], run: RunRef, from: { step: string, occurrence?: number }): ResolvedResetPoint {
  const steps = scheduledSteps(events)
  const calls = steps.filter((s) => s.name === from.step)
  const ran = [...new Set(steps.map((s) => s.name))]
  if (calls.length === 0) {
    throw new ApiError(400, 'ValidationError', 'Invalid Payload', {
      ...run,
      issues: [{
        path: '/from/step',
        in: 'body',
        message: `step "${from.step}" never ran in run ${run.runId}; steps that ran: ${ran.length === 0 ? '(none)' : ran.join(', ')}`
      }]
    })
  }
  const occurrence = from.occurrence ?? calls.length
  const call = calls[occurrence - 1]
  if (call === undefined) {
    throw new ApiError(400, 'ValidationError', 'Invalid Payload', {
      ...run,
      issues: [{ path: '/from/occurrence', in: 'body', message: `step "${from.step}" ran ${calls.length} time(s) in run ${run.runId}, not ${occurrence}` }]
    })
  }
  return stepPoint(events, run, call.eventId, from.step)
}

/** Resolves `from` against the run's whole history; throws 400 (unknown step) or 409 (no usable point). */
export function resolveResetPoint (events: HistoryEvent[], run: RunRef, from: ResetFrom): ResolvedResetPoint {
  if (typeof from === 'object') return namedStep(events, run, from)
  if (from === 'failedStep') {
    const scheduled = failingStepEventId(events)
    if (scheduled === null) throw resetNotPossible(run, 'no step of it failed (reset from a step by name, "start" or "lastWorkflowTask")')
    const name = scheduledSteps(events).find((s) => s.eventId === scheduled)?.name ?? ''
    return stepPoint(events, run, scheduled, name)
  }
  if (from === 'start') {
    // Any finished workflow task will do: a run whose first task never completed can still start over.
    const first = events.find((e) => e.workflowTaskCompletedEventAttributes ?? e.workflowTaskFailedEventAttributes ?? e.workflowTaskTimedOutEventAttributes)
    if (first === undefined) throw resetNotPossible(run, 'no workflow task of it has finished yet (is a worker polling its catalog?)')
    return { eventId: idOf(first), step: stepAfter(events, idOf(first)) }
  }
  const last = events.findLast((e) => e.workflowTaskCompletedEventAttributes)
  if (last === undefined) throw resetNotPossible(run, 'no workflow task of it has completed')
  return { eventId: idOf(last), step: stepAfter(events, idOf(last)) }
}
