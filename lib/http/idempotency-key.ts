/**
 * The `Idempotency-Key` request header (docs/idempotency.md; the keyed start itself:
 * plugins/app/starts/idempotency.ts).
 */

/** The header's value as a key: the draft's quoted Structured Field string and the bare form are one key. */
export function idempotencyKeyOf (header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  return header.startsWith('"') ? header.slice(1, -1) : header
}
