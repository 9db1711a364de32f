/**
 * The API's one status vocabulary: lower-case, `canceled` with one L, plus `paused` (Temporal
 * 1.28+ can pause a run) and `unknown` for codes newer than this SDK. plugins/app/runs/status.ts maps the
 * engine's names onto it.
 */
import { Type } from '@sinclair/typebox'
import { TERMINAL_STATUSES } from '@flowport/core/run-status'

// Which of them are final is written once, in core (core/src/run-status.ts).
export const STATUSES = ['running', 'paused', ...TERMINAL_STATUSES, 'unknown'] as const

export type Status = typeof STATUSES[number]

/** A string enum: one `enum` keyword, so a bad value gives one issue (a union of literals gives one per branch). */
export const Literals = <T extends readonly string[]>(values: T, options = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })

export const RunStatusSchema = Literals(STATUSES, {
  $id: 'RunStatus',
  description: 'Status of a run: `running`, the six terminal statuses, `paused` (a run paused by an operator, ' +
    'Temporal ≥ 1.28), or `unknown` (a status this API does not know yet)'
})

export const TerminalRunStatusSchema = Literals(TERMINAL_STATUSES, { $id: 'TerminalRunStatus', description: 'Final status of a closed run' })
