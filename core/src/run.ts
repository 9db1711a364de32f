/**
 * The words every part of Flowport names a run with (the API, the CLI, the client, the inspector,
 * the worker's completion webhook): its statuses, which of them are final, how a run is pinned,
 * and how a time is written. Pure: no import, so the browser and workflow code take it too.
 */

/** A run in any other status (`running`, `paused`, `unknown`) may still change. */
export const TERMINAL_STATUSES = ['completed', 'failed', 'canceled', 'terminated', 'timed_out', 'continued_as_new'] as const

/**
 * Lower-case, `canceled` with one L, plus `paused` (Temporal 1.28+ can pause a run) and `unknown`
 * for codes newer than the engine's SDK (schemas/status.ts describes them to the OpenAPI document).
 */
export const STATUSES = ['running', 'paused', ...TERMINAL_STATUSES, 'unknown'] as const

export type Status = typeof STATUSES[number]

/** What a run list filters by: `unknown` is no status the engine stores a run in. */
export const FILTER_STATUSES = STATUSES.filter((s): s is Exclude<Status, 'unknown'> => s !== 'unknown')
export type TerminalStatus = typeof TERMINAL_STATUSES[number]

export const isTerminalStatus = (status: string): status is TerminalStatus => (TERMINAL_STATUSES as readonly string[]).includes(status)

/** One run of a workflow id: every engine call after a request's first is pinned to one. */
export interface RunRef { workflowId: string, runId: string }

/** ISO-8601 or null: the one time format of the API. */
export const isoOrNull = (date: Date | undefined | null): string | null => date ? date.toISOString() : null
