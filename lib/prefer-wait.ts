/**
 * `Prefer: wait=<seconds>` (RFC 7240 §4.3) on POST /workflow/start. The header may hold several
 * preferences (`respond-async, wait=10`), in one field or several; a malformed or absent `wait`
 * is ignored, as RFC 7240 §2 asks, and the start answers as it does without the header.
 */

/** Seconds to wait, or undefined when the header asks for no (valid) wait. The first `wait` wins (RFC 7240 §2). */
export function preferredWait (header: string | undefined): number | undefined {
  if (header === undefined) return undefined
  for (const preference of header.split(',')) {
    // Parameters after `;` belong to the preference; `wait` takes none.
    const [token] = preference.split(';')
    const match = /^\s*wait\s*=\s*"?(\d{1,9})"?\s*$/i.exec(token)
    if (match) return Number(match[1])
  }
  return undefined
}
