/**
 * The `Prefer` request header (RFC 7240), the one home of its parsing: `wait=<seconds>` (§4.3) on
 * POST /workflow/start, `respond-async` (§4.1) on POST /workflow/{id}/update/{name}. The header
 * may hold several preferences (`respond-async, wait=10`), in one field or several; a malformed
 * or unknown preference is ignored, as RFC 7240 §2 asks, and the request answers as it does
 * without the header.
 */

export interface Preferences {
  /** Seconds to wait; undefined when no valid `wait` was sent. The first `wait` wins (RFC 7240 §2). */
  wait?: number
  /** `respond-async`: answer 202 once the work is accepted instead of waiting for it. */
  respondAsync: boolean
}

export function preferences (header: string | string[] | undefined): Preferences {
  const found: Preferences = { respondAsync: false }
  if (header === undefined) return found
  for (const preference of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    // Parameters after `;` belong to the preference; neither `wait` nor `respond-async` takes any.
    const [token] = preference.split(';')
    const wait = /^\s*wait\s*=\s*"?(\d{1,9})"?\s*$/i.exec(token)
    if (wait && found.wait === undefined) found.wait = Number(wait[1])
    if (/^\s*respond-async\s*$/i.test(token)) found.respondAsync = true
  }
  return found
}

/** Seconds to wait, or undefined when the header asks for no (valid) wait. */
export const preferredWait = (header: string | string[] | undefined): number | undefined => preferences(header).wait
