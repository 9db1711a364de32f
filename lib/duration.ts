/**
 * A Duration of the wire (schemas/schedules.ts): milliseconds, or a string such as `90s` or `2h`.
 * Schedule specs and delayed starts take them.
 */
import { validationError } from './api-error.js'
import type { Duration } from '../schemas/schedules.js'

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const

/** Milliseconds of a Duration (the schema checked its shape). */
export function durationMs (value: Duration): number {
  if (typeof value === 'number') return value
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(value)
  if (!m) throw validationError([{ path: '/', in: 'body', message: `${value} is not a duration` }])
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]
}
