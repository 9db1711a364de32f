import { localStepMarkerData } from '@flowport/core/local-step'
import { endedInFailure, stepsOf } from '@flowport/core/steps'
import type { HistoryEvent } from './close-events.js'

/**
 * A step's ActivityTaskScheduled event, or a local step's marker (the engine records only a marker
 * when it ends); a local step retried after a backoff leaves a marker per attempt, the last without `backoff`.
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

export function stepAfter (events: HistoryEvent[], eventId: number): string | null {
  return stepCalls(events).find((s) => s.eventId > eventId)?.name ?? null
}
