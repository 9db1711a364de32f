/**
 * The SSE stream's cursors carry the run id, so a client resuming after the current run changed
 * (continue-as-new, reset) resumes the run it was reading, never another run's events.
 * base64url of 24 bytes: run id (16), last event id (6, big-endian), done mark (2; a reconnect
 * after `done` gets 204). Fixed width, so every 32-character base64url string is a cursor
 * (schemas/common.ts CURSOR_PATTERN) and a schema-following fuzzer makes cursors the API reads.
 */
const CURSOR = /^[A-Za-z0-9_-]{32}$/

export interface StreamCursor {
  runId: string
  eventId: number
  done: boolean
}

export function encodeCursor ({ runId, eventId, done }: StreamCursor): string {
  const bytes = Buffer.alloc(24)
  Buffer.from(runId.replace(/-/g, ''), 'hex').copy(bytes, 0)
  bytes.writeUIntBE(eventId, 16, 6)
  bytes.writeUInt16BE(done ? 1 : 0, 22)
  return bytes.toString('base64url')
}

export function decodeCursor (value: string): StreamCursor | undefined {
  if (!CURSOR.test(value)) return undefined
  const bytes = Buffer.from(value, 'base64url')
  const hex = bytes.subarray(0, 16).toString('hex')
  const runId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  return { runId, eventId: bytes.readUIntBE(16, 6), done: bytes.readUInt16BE(22) !== 0 }
}
