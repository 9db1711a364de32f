/**
 * Well-formed Unicode in JSON bodies. JSON may escape half of a surrogate pair on its own
 * (`"\udc00"`); such a string has no UTF-8 form, so the engine's gRPC API refuses it. The API
 * finds it when the body is parsed and answers 400 with its location.
 */
const LONE_SURROGATE = /\p{Cs}/u

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')

/** JSON pointer of the first string (or property name) with a lone surrogate, else undefined. */
export function loneSurrogateAt (value: unknown, pointer = ''): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? pointer || '/' : undefined
  if (typeof value !== 'object' || value === null) return undefined
  for (const [key, child] of Object.entries(value)) {
    const at = `${pointer}/${escapePointer(key)}`
    if (LONE_SURROGATE.test(key)) return at
    const found = loneSurrogateAt(child, at)
    if (found !== undefined) return found
  }
  return undefined
}
