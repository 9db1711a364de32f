/**
 * The SSE stream's cursors (its `id:` lines), opaque and URL-safe. Each carries the run id, so a
 * client that resumes after the workflow's current run changed (continue-as-new, reset) resumes
 * the run it was reading, never another run's events filtered by its own event number.
 *
 * - base64url of 24 bytes: the run id (16), the last event id the client has (6, big-endian)
 *   and a done mark (2; not zero on `done`: a reconnect with it gets 204). Fixed width, so every
 *   32-character base64url string is a cursor (schemas/common.ts CURSOR_PATTERN): a client
 *   generator or fuzzer that follows the schema produces cursors the API reads; one naming an
 *   unknown run is a 404, one ahead of the run's history a 400.
 *
 * History pages use page tokens instead (lib/page-token.ts).
 */
const CURSOR = /^[A-Za-z0-9_-]{32}$/

export interface StreamCursor {
  runId: string
  /** The last event the client has received. */
  eventId: number
  /** The client has received `done`. */
  done: boolean
}

export function encodeCursor ({ runId, eventId, done }: StreamCursor): string {
  const bytes = Buffer.alloc(24)
  Buffer.from(runId.replace(/-/g, ''), 'hex').copy(bytes, 0)
  bytes.writeUIntBE(eventId, 16, 6)
  bytes.writeUInt16BE(done ? 1 : 0, 22)
  return bytes.toString('base64url')
}

/** The cursor, or undefined when the value is not 32 base64url characters. */
export function decodeCursor (value: string): StreamCursor | undefined {
  if (!CURSOR.test(value)) return undefined
  const bytes = Buffer.from(value, 'base64url')
  const hex = bytes.subarray(0, 16).toString('hex')
  const runId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  return { runId, eventId: bytes.readUIntBE(16, 6), done: bytes.readUInt16BE(22) !== 0 }
}
