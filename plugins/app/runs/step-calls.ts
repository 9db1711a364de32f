/**
 * The calls of steps a run's history records, in order: what a reset point is named by
 * (plugins/app/control/reset-point.ts) and what a run made by a reset names as the step it
 * retried (./reset-origin.ts).
 */
import { localStepMarkerData } from '@flowport/worker/local-step'
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
/** An activity type is `workflow#step`; the user knows the step part. */
const stepName = (activityType: string) => activityType.slice(activityType.indexOf('#') + 1)

export function stepCalls (events: HistoryEvent[]): StepCall[] {
  const failures = new Map(events.flatMap((e) => {
    const scheduled = e.activityTaskFailedEventAttributes?.scheduledEventId ?? e.activityTaskTimedOutEventAttributes?.scheduledEventId
    return scheduled != null ? [[Number(scheduled), idOf(e)] as const] : []
  }))
  return events.flatMap((e) => {
    const type = e.activityTaskScheduledEventAttributes?.activityType?.name
    if (type) return [{ name: stepName(type), eventId: idOf(e), failedEventId: failures.get(idOf(e)) ?? null }]
    const local = localStepMarkerData(e.markerRecordedEventAttributes)
    if (local === null || local.backoff != null) return []
    return [{ name: stepName(local.activity_type), eventId: idOf(e), failedEventId: e.markerRecordedEventAttributes?.failure ? idOf(e) : null }]
  })
}

/** The first step called after `eventId`, or null. */
export function stepAfter (events: HistoryEvent[], eventId: number): string | null {
  return stepCalls(events).find((s) => s.eventId > eventId)?.name ?? null
}
