/**
 * Opaque, URL-safe position markers. Both carry the run id, so a client that resumes after the
 * workflow's current run changed (continue-as-new, reset) resumes the run it was reading, never
 * another run's events filtered by its own event number (the anchor's gap, research §9.13).
 *
 * - SSE `id:` = base64url(`<runId>:<eventId>`) after a `history` batch, and
 *   base64url(`<runId>:<eventId>:done`) on `done` (a reconnect with it gets 204).
 * - REST `pageToken` = base64url(`<runId>` LF `<engine page token bytes>`).
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

export interface PageToken {
  runId: string
  engineToken: Uint8Array
}

export function encodePageToken ({ runId, engineToken }: PageToken): string {
  return Buffer.concat([Buffer.from(`${runId}\n`), engineToken]).toString('base64url')
}

export function decodePageToken (value: string): PageToken | undefined {
  if (!BASE64URL.test(value)) return undefined
  const bytes = Buffer.from(value, 'base64url')
  const newline = bytes.indexOf(0x0a)
  if (newline < 0 || newline === bytes.length - 1) return undefined
  const runId = bytes.subarray(0, newline).toString('utf8')
  if (!RUN_ID.test(runId)) return undefined
  const token = { runId: runId.toLowerCase(), engineToken: bytes.subarray(newline + 1) }
  return encodePageToken(token) === value ? token : undefined
}
