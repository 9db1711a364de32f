/** What JSON Schema cannot check. None recurses: a body nested 100,000 levels deep must cost a loop, not the stack. */
const LONE_SURROGATE = /\p{Cs}/u

const [OPEN_BRACE, OPEN_BRACKET, CLOSE_BRACE, CLOSE_BRACKET, QUOTE, BACKSLASH] = [...'{[}]"\\'].map((c) => c.charCodeAt(0))

/** Read from the text, before it is parsed: everything after the parser recurses once per level. */
export function nestsDeeperThan (text: string, maxDepth: number): boolean {
  // A text shorter than the limit cannot hold more opening brackets than the limit.
  if (text.length <= maxDepth) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) {
      inString = true
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return true
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1')

interface Node { value: unknown, key?: string, parent?: Node }

function pointerOf (node: Node): string {
  const keys: string[] = []
  for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) keys.push(escapePointer(n.key))
  return keys.length === 0 ? '/' : `/${keys.reverse().join('/')}`
}

/** The JSON pointer of the first value, in document order, for which `test` holds. */
function findPath (root: unknown, test: (key: string | undefined, value: unknown) => boolean): string | undefined {
  const stack: Node[] = [{ value: root }]
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (test(node.key, node.value)) return pointerOf(node)
    const { value } = node
    if (typeof value !== 'object' || value === null) continue
    const entries = Object.entries(value)
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i][1], key: entries[i][0], parent: node })
  }
  return undefined
}

/** A lone surrogate (`"\udc00"`) has no UTF-8 form: the engine's gRPC API would refuse it. */
export function loneSurrogateAt (value: unknown): string | undefined {
  return findPath(value, (key, v) => (key !== undefined && LONE_SURROGATE.test(key)) || (typeof v === 'string' && LONE_SURROGATE.test(v)))
}

/** Fastify's parser refuses prototype-poisoning keys saying only "not valid JSON"; this finds which key it was. */
export function prototypeKeyAt (value: unknown): string | undefined {
  return findPath(value, (key, v) => key === '__proto__' ||
    (key === 'constructor' && typeof v === 'object' && v !== null && Object.prototype.hasOwnProperty.call(v, 'prototype')))
}
