/**
 * Exit codes of the client commands (docs/cli.md), and the one-line error they print.
 */
import { FlowportError, ValidationError } from '@flowport/client'

export const EXIT = {
  /** The workflow completed (or the command did what it was asked). */
  ok: 0,
  /** The workflow failed, was canceled, terminated or timed out. */
  workflowFailed: 1,
  /** Usage or input error: bad JSON, unknown option, input refused by the API, unknown workflow. */
  usage: 2,
  /** The API or the network failed. */
  api: 3,
  /** The /run wait timed out: the workflow keeps running. */
  runTimeout: 4,
  /** Ctrl-C detached from a run or tail (128 + SIGINT). */
  interrupted: 130
} as const

/** A failure the command already knows how to describe, with its exit code. */
export class CliError extends Error {
  constructor (message: string, readonly exitCode: number, readonly details?: unknown) {
    super(message)
    this.name = 'CliError'
  }
}

/** API errors that mean "what you asked for is wrong", not "the service failed". */
const USAGE_STATUSES = new Set([400, 404, 405, 406, 409, 412, 413, 415])

export function exitCodeOf (err: unknown): number {
  if (err instanceof CliError) return err.exitCode
  // FlowportNetworkError (no HTTP answer) is a FlowportError with status 0: exit 3.
  if (err instanceof FlowportError) {
    if (err.status === 408) return EXIT.runTimeout
    // 422: the workflow's update validator refused the payload (input), or its handler threw (the workflow's failure).
    if (err.status === 422) return err.error === 'UpdateRejectedError' ? EXIT.usage : EXIT.workflowFailed
    return USAGE_STATUSES.has(err.status) ? EXIT.usage : EXIT.api
  }
  return EXIT.api
}

/** One readable line: the API's error name and message; `verbose` adds the status, body and cause. */
export function describeError (err: unknown, verbose: boolean): string {
  if (err instanceof CliError) {
    return verbose && err.details !== undefined ? `${err.message}\n${JSON.stringify(err.details, null, 2)}` : err.message
  }
  if (err instanceof FlowportError) {
    // A validation error's message is generic; its issues say what was wrong.
    const issues = err instanceof ValidationError && err.issues.length > 0
      ? `: ${err.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`
      : ''
    const line = `${err.error}: ${err.message}${issues}`
    if (!verbose) return line
    const cause = err.cause instanceof Error ? `\ncause: ${err.cause.stack ?? err.cause.message}` : ''
    return `${line}\nHTTP ${err.status}${err.status === 0 ? ' (no answer)' : ''}\n${JSON.stringify(err.body ?? null, null, 2)}${cause}`
  }
  const e = err instanceof Error ? err : new Error(String(err))
  return verbose ? (e.stack ?? e.message) : `${e.name}: ${e.message}`
}
