/**
 * The calls of steps a run's history records, in order: what a reset point is named by
 * (plugins/app/control/reset-point.ts) and what a run made by a reset names as the step it
 * retried (./reset-origin.ts).
 */
import { localStepMarkerData } from '@flowport/core/local-step'
import { endedInFailure, stepsOf } from '@flowport/core/steps'
import type { HistoryEvent } from './close-events.js'

/**
 * A call of a step: its ActivityTaskScheduled event, or for a local step (run inside the workflow
 * task: the engine records only a marker when it ends) its marker. A local step retried after a
 * backoff leaves a marker per such attempt; only the last, without `backoff`, ends the call.
 */
export interface StepCall {
  name: string
  eventId: number
  /** The event that ended the call in failure (ActivityTaskFailed or TimedOut, the marker); null when it did not fail. */
  failedEventId: number | null
}

export const idOf = (event: HistoryEvent) => Number(event.eventId)

export const stepCalls = (events: HistoryEvent[]): StepCall[] => stepsOf(events, { localStep: localStepMarkerData })
  .filter((s) => s.kind === 'step')
  .map((s) => ({ name: s.name, eventId: Number(s.id), failedEventId: endedInFailure(s) ? Number(s.endId) : null }))

/** The first step called after `eventId`, or null. */
export function stepAfter (events: HistoryEvent[], eventId: number): string | null {
  return stepCalls(events).find((s) => s.eventId > eventId)?.name ?? null
}
