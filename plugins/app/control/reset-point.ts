/**
 * Where to reset a run, in the user's words (a step name, "the step that failed", "the start"),
 * turned into the engine's: the id of a workflow task event of the run's history. A reset to a
 * workflow task's completion keeps every event before it and runs the task again, so the commands
 * that task issued (scheduling the step) are issued anew and everything recorded earlier (the
 * results of earlier steps) is replayed, not run again. docs/reset.md tells the whole story.
 */
import type { temporal } from '@temporalio/proto'
import type { ResetFrom } from '../../../schemas/reset.js'
import { ApiError } from '../../../lib/api-error.js'
import { type HistoryEvent, idOf, stepAfter, stepCalls, type StepCall } from '../engine/index.js'
import type { RunRef } from '@flowport/core/run'

type Failure = temporal.api.failure.v1.IFailure

export interface ResolvedResetPoint {
  /** The WorkflowTaskCompleted (or, for `start`, any task-finishing) event the new run continues from. */
  eventId: number
  /** The first step scheduled after the point in the old run: the first that runs again; null when none was. */
  step: string | null
}

export const resetNotPossible = (run: RunRef, reason: string) =>
  new ApiError(409, 'ResetNotPossibleError', `Run ${run.runId} of workflow ${run.workflowId} cannot be reset: ${reason}`, run)

/**
 * The call whose failure is the run's failure, if a step's is: the one the failure chain names
 * (a step on a task queue), else the call that failed last (a local step's failure reaches the
 * workflow without the scheduled event id, and a run that did not fail, or failed in workflow code
 * after a step failed, names none).
 */
function failingStep (events: HistoryEvent[]): StepCall | null {
  const calls = stepCalls(events)
  const closeFailure = events.find((e) => e.workflowExecutionFailedEventAttributes)?.workflowExecutionFailedEventAttributes?.failure
  for (let f: Failure | null | undefined = closeFailure; f; f = f.cause) {
    const scheduled = Number(f.activityFailureInfo?.scheduledEventId ?? 0)
    const named = calls.find((c) => c.eventId === scheduled)
    if (named) return named
  }
  let last: StepCall | null = null
  for (const c of calls) if (c.failedEventId !== null && c.failedEventId > (last?.failedEventId ?? 0)) last = c
  return last
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

/**
 * The workflow task that issued the call: the last one completed before its event (a local step's
 * marker is a command of the task in which the step ended). Running that task again calls the step
 * again. A local step that outlasted a workflow task was requested in an earlier one: the new run
 * replays that request, finds no marker for it in the copied history and runs the step, as a worker
 * that took over a run in the middle of a local step does.
 */
function stepPoint (events: HistoryEvent[], run: RunRef, call: StepCall): ResolvedResetPoint {
  const eventId = taskBefore(events, call.eventId)
  if (eventId === null) throw resetNotPossible(run, `no workflow task completed before step "${call.name}" was scheduled`)
  return { eventId, step: call.name }
}

function namedStep (events: HistoryEvent[], run: RunRef, from: { step: string, occurrence?: number }): ResolvedResetPoint {
  const steps = stepCalls(events)
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
  return stepPoint(events, run, call)
}

/** Resolves `from` against the run's whole history; throws 400 (unknown step) or 409 (no usable point). */
export function resolveResetPoint (events: HistoryEvent[], run: RunRef, from: ResetFrom): ResolvedResetPoint {
  if (typeof from === 'object') return namedStep(events, run, from)
  if (from === 'failedStep') {
    const failed = failingStep(events)
    if (failed === null) throw resetNotPossible(run, 'no step of it failed (reset from a step by name, "start" or "lastWorkflowTask")')
    return stepPoint(events, run, failed)
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
