/**
 * Page tokens: the engine's own, plus what the API resumes from, behind a digest that binds it to
 * the request it continues. A forged or other-request token is refused before the engine, which
 * answers garbage with an unhelpful error.
 */
import { createHash } from 'node:crypto'

const BASE64URL = /^[A-Za-z0-9_-]+$/
const DIGEST_BYTES = 8
const SEPARATOR = 0x0a

export interface PageToken {
  state: string
  engineToken: Uint8Array
}

const digest = (scope: string, payload: Uint8Array) =>
  createHash('sha256').update(scope).update('\0').update(payload).digest().subarray(0, DIGEST_BYTES)

export function encodePageToken (scope: string, { state, engineToken }: PageToken): string {
  const payload = Buffer.concat([Buffer.from(state), Buffer.from([SEPARATOR]), engineToken])
  return Buffer.concat([digest(scope, payload), payload]).toString('base64url')
}

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
