/**
 * Which statuses of a run are final: the one list every part of Flowport reads (the API's status
 * vocabulary in schemas/status.ts, the CLI, the worker's completion webhook, the run outcome).
 * A run in any other status (`running`, `paused`, `unknown`) may still change.
 */
export const TERMINAL_STATUSES = ['completed', 'failed', 'canceled', 'terminated', 'timed_out', 'continued_as_new'] as const

export type TerminalStatus = typeof TERMINAL_STATUSES[number]

export const isTerminalStatus = (status: string): status is TerminalStatus => (TERMINAL_STATUSES as readonly string[]).includes(status)
