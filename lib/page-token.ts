/**
 * The opaque page tokens of every paged read (the runs listing, history pages): the engine's own
 * page token, plus what the API needs to resume there (`state`, e.g. a history page's run and next
 * event), behind a short digest that binds the token to the request it continues (the listing's
 * filters, the workflow id). As base64url: opaque, URL-safe, no server state; a forged, damaged or
 * other-request token is refused before it reaches the engine, which answers a garbage token with
 * an unhelpful error.
 */
import { createHash } from 'node:crypto'

const BASE64URL = /^[A-Za-z0-9_-]+$/
const DIGEST_BYTES = 8
const SEPARATOR = 0x0a

export interface PageToken {
  /** What the API resumes from besides the engine's token (no newline); '' when nothing. */
  state: string
  /** The engine's page token; empty = the engine's first page. */
  engineToken: Uint8Array
}

const digest = (scope: string, payload: Uint8Array) =>
  createHash('sha256').update(scope).update('\0').update(payload).digest().subarray(0, DIGEST_BYTES)

export function encodePageToken (scope: string, { state, engineToken }: PageToken): string {
  const payload = Buffer.concat([Buffer.from(state), Buffer.from([SEPARATOR]), engineToken])
  return Buffer.concat([digest(scope, payload), payload]).toString('base64url')
}

/** The token, or undefined when `value` is not a token this API issued for `scope`. */
export function decodePageToken (scope: string, value: string): PageToken | undefined {
  if (!BASE64URL.test(value)) return undefined
  const raw = Buffer.from(value, 'base64url')
  const payload = raw.subarray(DIGEST_BYTES)
  const separator = payload.indexOf(SEPARATOR)
  if (separator < 0 || !digest(scope, payload).equals(raw.subarray(0, DIGEST_BYTES))) return undefined
  const token = { state: payload.subarray(0, separator).toString('utf8'), engineToken: payload.subarray(separator + 1) }
  // Only the canonical spelling: one token, one string.
  return encodePageToken(scope, token) === value ? token : undefined
}
