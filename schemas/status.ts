/**
 * The run statuses (core/src/run.ts) as schemas; plugins/app/engine/runs/status.ts maps the
 * engine's names onto them.
 */
import { Type } from '@sinclair/typebox'
import { STATUSES, TERMINAL_STATUSES } from '@flowport/core/run'

/** A string enum: one `enum` keyword, so a bad value gives one issue (a union of literals gives one per branch). */
export const Literals = <T extends readonly string[]>(values: T, options = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options })

export const RunStatusSchema = Literals(STATUSES, {
  $id: 'RunStatus',
  description: 'Status of a run: `running`, the six terminal statuses, `paused` (a run paused by an operator, ' +
    'Temporal ≥ 1.28), or `unknown` (a status this API does not know yet)'
})

export const TerminalRunStatusSchema = Literals(TERMINAL_STATUSES, { $id: 'TerminalRunStatus', description: 'Final status of a closed run' })
