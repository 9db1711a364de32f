/**
 * What client generators need beyond what @fastify/swagger writes, for both documents
 * (docs/catalog-openapi.md): a union of string literals as one `enum` (Java's generator cannot read
 * the union), error headers declared once, and unreached components dropped.
 */
type Json = Record<string, any>

const isStringEnum = (s: unknown): s is Json => {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) return false
  const keys = Object.keys(s)
  if (!keys.every((k) => k === 'type' || k === 'enum' || k === 'const' || k === 'description')) return false
  const { type, enum: values, const: constant } = s as Json
  if (type !== undefined && type !== 'string') return false
  if (constant !== undefined) return typeof constant === 'string' && values === undefined
  return Array.isArray(values) && values.every((v) => typeof v === 'string')
}

export function plainEnums (node: unknown): void {
  if (node === null || typeof node !== 'object') return
  for (const value of Object.values(node)) plainEnums(value)
  if (Array.isArray(node)) return
  const s = node as Json
  for (const key of ['anyOf', 'oneOf']) {
    const members = s[key]
    if (!Array.isArray(members) || members.length < 2 || !members.every(isStringEnum) || s.discriminator !== undefined) continue
    delete s[key]
    s.type = 'string'
    s.enum = [...new Set(members.flatMap((m: Json) => m.const !== undefined ? [m.const] : m.enum))]
  }
}

export const ERROR_HEADERS = {
  'WWW-Authenticate': {
    description: 'The authentication scheme to use: `Bearer realm="flowport"`',
    schema: { type: 'string' },
    example: 'Bearer realm="flowport"'
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again',
    schema: { type: 'integer', minimum: 0 },
    example: 5
  },
  'RateLimit-Limit': {
    description: 'The key\'s request budget for the window (IETF draft RateLimit header fields)',
    schema: { type: 'integer', minimum: 0 }
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the window',
    schema: { type: 'integer', minimum: 0 }
  },
  'RateLimit-Reset': {
    description: 'Seconds until the window ends and the budget refills',
    schema: { type: 'integer', minimum: 0 }
  }
} as const

const HEADERS_OF_STATUS: Record<string, Array<keyof typeof ERROR_HEADERS>> = {
  401: ['WWW-Authenticate'],
  429: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'],
  503: ['Retry-After']
}

export function declareErrorHeaders (doc: Json): void {
  doc.components.headers = { ...doc.components.headers, ...structuredClone(ERROR_HEADERS) }
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const operation of Object.values<Json>(item)) {
      for (const [status, names] of Object.entries(HEADERS_OF_STATUS)) {
        const answer = operation?.responses?.[status]
        if (answer === undefined) continue
        answer.headers = { ...answer.headers, ...Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }])) }
      }
    }
  }
}

export function pruneUnusedComponents (doc: Json): void {
  const reached = new Set<string>()
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return
    const ref = (node as Json).$ref
    if (typeof ref === 'string' && ref.startsWith('#/components/') && !reached.has(ref)) {
      reached.add(ref)
      const [, , kind, name] = ref.split('/')
      visit(doc.components?.[kind]?.[decodeURIComponent(name)])
    }
    for (const value of Object.values(node)) visit(value)
  }
  visit(doc.paths)
  visit(doc.webhooks)
  for (const kind of ['schemas', 'headers']) {
    const components = doc.components?.[kind] as Json | undefined
    if (components === undefined) continue
    for (const name of Object.keys(components)) if (!reached.has(`#/components/${kind}/${name}`)) delete components[name]
  }
}
