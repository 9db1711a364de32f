/** The `Prefer` header (RFC 7240): `wait=<seconds>` and `respond-async`; a malformed or unknown preference is ignored (§2). */

export interface Preferences {
  /** The first `wait` wins (RFC 7240 §2). */
  wait?: number
  respondAsync: boolean
}

export function preferences (header: string | string[] | undefined): Preferences {
  const found: Preferences = { respondAsync: false }
  if (header === undefined) return found
  for (const preference of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [token] = preference.split(';')
    const wait = /^\s*wait\s*=\s*"?(\d{1,9})"?\s*$/i.exec(token)
    if (wait && found.wait === undefined) found.wait = Number(wait[1])
    if (/^\s*respond-async\s*$/i.test(token)) found.respondAsync = true
  }
  return found
}

export const preferredWait = (header: string | string[] | undefined): number | undefined => preferences(header).wait
