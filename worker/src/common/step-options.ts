/**
 * Activity options a step or evaluator may set. Kept to JSON data (durations as milliseconds or
 * strings like '30s') because the worker embeds them in the workflow bundle's manifest.
 */
import { Type, type Static } from '@sinclair/typebox'

const Duration = Type.Union([
  Type.Integer({ minimum: 1 }),
  Type.String({ pattern: '^\\d+(\\.\\d+)?\\s*(ms|s|m|h|d)$' })
], { description: 'milliseconds, or a string such as "100ms", "30s", "5m"' })

export const RetryOptionsSchema = Type.Object({
  initialInterval: Type.Optional(Duration),
  backoffCoefficient: Type.Optional(Type.Number({ minimum: 1 })),
  maximumInterval: Type.Optional(Duration),
  /** 0 = unlimited (Temporal's meaning). */
  maximumAttempts: Type.Optional(Type.Integer({ minimum: 0 })),
  nonRetryableErrorTypes: Type.Optional(Type.Array(Type.String()))
}, { additionalProperties: false })

export const StepOptionsSchema = Type.Object({
  startToCloseTimeout: Type.Optional(Duration),
  scheduleToCloseTimeout: Type.Optional(Duration),
  scheduleToStartTimeout: Type.Optional(Duration),
  heartbeatTimeout: Type.Optional(Duration),
  retry: Type.Optional(RetryOptionsSchema),
  local: Type.Optional(Type.Boolean({
    description: 'Run as a local activity, inside the workflow task (for short steps: no engine round trip; ' +
      'no heartbeats, retries driven by the worker; docs/performance.md)'
  }))
}, { additionalProperties: false })

export type RetryOptions = Static<typeof RetryOptionsSchema>
export type StepOptions = Static<typeof StepOptionsSchema>

/**
 * Defaults for every step: a step that hangs is stopped after 5 minutes, and a failing step is
 * tried 5 times with exponential backoff (1s, 2s, 4s, 8s) before the workflow sees the failure.
 */
export const DEFAULT_STEP_OPTIONS = {
  startToCloseTimeout: '5m',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', maximumAttempts: 5 }
} as const satisfies StepOptions

/** A step's own options over the defaults; `retry` is merged key by key. */
export function resolveStepOptions (options: StepOptions | undefined): StepOptions {
  return {
    ...DEFAULT_STEP_OPTIONS,
    ...options,
    retry: { ...DEFAULT_STEP_OPTIONS.retry, ...options?.retry }
  }
}
