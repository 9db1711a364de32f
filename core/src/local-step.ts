/**
 * Steps that run as Temporal local activities (`options.local`): inside the workflow task of the
 * worker that runs the workflow, with no round trip through the engine's task queues. The engine
 * records only a marker with the step's result, not a scheduled event with its input, so a local
 * step returns its input and times beside its output; the workflow side hands the caller the
 * output alone, and the trace reads the rest from the marker (docs/performance.md).
 */
import type { temporal } from '@temporalio/proto'
import { defaultPayloadConverter } from '@temporalio/common'
import { readLocalActivityMarker, type LocalStepMarker } from './local-markers.js'

/** What a local step's activity returns to the workflow (and what its marker records). */
export interface LocalStepResult {
  input: unknown
  output: unknown
  startTime: string
  endTime: string
}

/**
 * The SDK's data of a local step's marker (the JSON of its `data` detail, Temporal Core's
 * LocalActivityMarkerData; or another SDK's layout, ./local-markers.ts), decoded from the engine's
 * payloads; null for any other marker, or one whose data this reader does not understand. The
 * trace and the reset point (the API's plugins/app/engine/runs/step-calls.ts) both place local
 * steps by it (steps.ts, `localStep` option).
 */
export function localStepMarkerData (marker: { markerName?: string | null, details?: unknown } | null | undefined): LocalStepMarker | null {
  const details = marker?.details as temporal.api.history.v1.IMarkerRecordedEventAttributes['details']
  return readLocalActivityMarker(marker?.markerName, (key) => {
    const payload = details?.[key]?.payloads?.[0]
    if (!payload) return undefined
    try {
      return defaultPayloadConverter.fromPayload(payload as never)
    } catch {
      return undefined
    }
  })
}

/** Whether a local activity's output is a Flowport local step's (its input and times beside the output), not another SDK's bare output. */
export function isLocalStepResult (value: unknown): value is LocalStepResult {
  const result = value as Partial<LocalStepResult> | null
  return result !== null && typeof result === 'object' && 'input' in result && 'output' in result &&
    typeof result.startTime === 'string' && typeof result.endTime === 'string'
}
