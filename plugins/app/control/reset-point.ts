/**
 * A reset to a workflow task's completion runs that task again: its commands (scheduling the step)
 * are issued anew, and earlier results are replayed, not run again (docs/reset.md).
 */
import type { temporal } from '@temporalio/proto'
import type { ResetFrom } from '../../../schemas/reset.js'
import { ApiError } from '../../../lib/api-error.js'
import { type HistoryEvent, idOf, stepAfter, stepCalls, type StepCall } from '../engine/index.js'
import type { RunRef } from '@flowport/core/run'

type Failure = temporal.api.failure.v1.IFailure

export interface ResolvedResetPoint {
  eventId: number
  /** The first step that runs again; null when none was scheduled after the point. */
  step: string | null
}

export const resetNotPossible = (run: RunRef, reason: string) =>
  new ApiError(409, 'ResetNotPossibleError', `Run ${run.runId} of workflow ${run.workflowId} cannot be reset: ${reason}`, run)

/**
 * The step the failure chain names, else the call that failed last: a local step's failure reaches
 * the workflow without the scheduled event id.
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

function taskBefore (events: HistoryEvent[], eventId: number): number | null {
  let found: number | null = null
  for (const e of events) {
    if (idOf(e) >= eventId) break
    if (e.workflowTaskCompletedEventAttributes) found = idOf(e)
  }
  return found
}

/**
 * A local step's marker is a command of the task in which it ended. One that outlasted a workflow
 * task: the new run replays its request, finds no marker and runs the step, as a worker taking over does.
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
