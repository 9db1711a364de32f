/**
 * Checks of parsed JSON bodies that JSON Schema cannot express, each answered with a 400 naming
 * where the offending value is (app.ts runs them when the body is parsed).
 */
const LONE_SURROGATE = /\p{Cs}/u

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')

/** The first property (depth first, with its JSON pointer) for which `test` holds; `key` is undefined for the root value. */
function findPath (value: unknown, test: (key: string | undefined, value: unknown) => boolean, pointer = '', key?: string): string | undefined {
  if (test(key, value)) return pointer || '/'
  if (typeof value !== 'object' || value === null) return undefined
  for (const [childKey, child] of Object.entries(value)) {
    const found = findPath(child, test, `${pointer}/${escapePointer(childKey)}`, childKey)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * JSON may escape half of a surrogate pair on its own (`"\udc00"`); such a string has no UTF-8
 * form, so the engine's gRPC API refuses it. The pointer of the first string or property name
 * holding one, else undefined.
 */
export function loneSurrogateAt (value: unknown): string | undefined {
  return findPath(value, (key, v) => (key !== undefined && LONE_SURROGATE.test(key)) || (typeof v === 'string' && LONE_SURROGATE.test(v)))
}

/**
 * Fastify's JSON parser refuses the keys of prototype poisoning (secure-json-parse with
 * `protoAction`/`constructorAction: 'error'`): `__proto__`, and `constructor` holding an object
 * with a `prototype`. Its error says only "not valid JSON"; this finds which key it was.
 */
export function prototypeKeyAt (value: unknown): string | undefined {
  return findPath(value, (key, v) => key === '__proto__' ||
    (key === 'constructor' && typeof v === 'object' && v !== null && Object.prototype.hasOwnProperty.call(v, 'prototype')))
}
