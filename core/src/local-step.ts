/**
 * Steps that run as Temporal local activities (`options.local`): inside the workflow task of the
 * worker that runs the workflow, with no round trip through the engine's task queues. The engine
 * records only a marker with the step's result, not a scheduled event with its input, so a local
 * step returns its input and times beside its output; the workflow side hands the caller the
 * output alone, and the trace reads the rest from the marker (docs/performance.md).
 */
import type { temporal } from '@temporalio/proto'
import { defaultPayloadConverter } from '@temporalio/common'
import { LOCAL_ACTIVITY_MARKER, type LocalStepMarker } from './steps.js'

/** What a local step's activity returns to the workflow (and what its marker records). */
export interface LocalStepResult {
  input: unknown
  output: unknown
  startTime: string
  endTime: string
}

/**
 * The SDK's data of a local step's marker (the JSON of its `data` detail, Temporal Core's
 * LocalActivityMarkerData), decoded from the engine's payload; null for any other marker, or one
 * whose data this reader does not understand. The trace and the reset point (the API's
 * plugins/app/engine/runs/step-calls.ts) both place local steps by it (steps.ts, `localStep` option).
 */
export function localStepMarkerData (marker: { markerName?: string | null, details?: unknown } | null | undefined): LocalStepMarker | null {
  const details = marker?.details as temporal.api.history.v1.IMarkerRecordedEventAttributes['details']
  const payload = marker?.markerName === LOCAL_ACTIVITY_MARKER ? details?.data?.payloads?.[0] : undefined
  if (!payload) return null
  try {
    const data = defaultPayloadConverter.fromPayload(payload as never) as LocalStepMarker | null
    return data !== null && typeof data === 'object' && typeof data.activity_type === 'string' ? data : null
  } catch {
    return null
  }
}
