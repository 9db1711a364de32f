/**
 * The SSE stream's cursors (its `id:` lines), opaque and URL-safe. Each carries the run id, so a
 * client that resumes after the workflow's current run changed (continue-as-new, reset) resumes
 * the run it was reading, never another run's events filtered by its own event number.
 *
 * - base64url(`<runId>:<eventId>`) after a `history` batch, and
 * - base64url(`<runId>:<eventId>:done`) on `done` (a reconnect with it gets 204).
 *
 * History pages use page tokens instead (lib/page-token.ts).
 */
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const CURSOR = /^([0-9a-f-]{36}):([1-9][0-9]{0,15})(:done)?$/i
const BASE64URL = /^[A-Za-z0-9_-]+$/

export interface StreamCursor {
  runId: string
  /** The last event the client has received. */
  eventId: number
  /** The client has received `done`. */
  done: boolean
}

export function encodeCursor ({ runId, eventId, done }: StreamCursor): string {
  return Buffer.from(`${runId}:${eventId}${done ? ':done' : ''}`).toString('base64url')
}

/** The cursor, or undefined when the value is not one this API produced. */
export function decodeCursor (value: string): StreamCursor | undefined {
  if (!BASE64URL.test(value) || value.length > 100) return undefined
  const match = CURSOR.exec(Buffer.from(value, 'base64url').toString('utf8'))
  if (!match || !RUN_ID.test(match[1])) return undefined
  const cursor = { runId: match[1].toLowerCase(), eventId: Number(match[2]), done: match[3] !== undefined }
  // Only the canonical spelling: one cursor, one string.
  return encodeCursor(cursor) === value ? cursor : undefined
}
