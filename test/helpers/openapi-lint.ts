/**
 * What client generators trip over in an OpenAPI document (issue 48), found by walking it; used on
 * both documents by test/openapi.test.ts and test/catalog-openapi.test.ts.
 */
type Json = Record<string, any>

const isObjectWithProperties = (s: Json) => (s.type === 'object' || s.properties !== undefined) && Object.keys(s.properties ?? {}).length > 0

/**
 * Inline object schemas (with properties, no `title`) inside a component: a generator names each
 * after where it sits (openapi-python-client: parent + property), and such a name can be another
 * component's (`Schedule.properties.policies` → `SchedulePolicies`). `skip`: components not to walk.
 */
export function inlineObjects (doc: Json, skip: (name: string) => boolean = () => false): string[] {
  const found: string[] = []
  const walk = (s: unknown, at: string, top: boolean): void => {
    if (s === null || typeof s !== 'object') return
    if (Array.isArray(s)) {
      s.forEach((value, i) => { walk(value, `${at}/${i}`, false) })
      return
    }
    const schema = s as Json
    if (!top && schema.title === undefined && isObjectWithProperties(schema)) found.push(at)
    for (const [key, value] of Object.entries(schema)) {
      // Values that are not schemas.
      if (key === 'examples' || key === 'example' || key === 'default' || key === 'enum' || key === 'const' || key === 'discriminator') continue
      walk(value, `${at}/${key}`, false)
    }
  }
  for (const [name, schema] of Object.entries<Json>(doc.components.schemas)) if (!skip(name)) walk(schema, `#/components/schemas/${name}`, true)
  return found
}

/** `anyOf`/`oneOf`s whose members are all one-value enums (or consts): one `enum` says the same, and some generators (Java `native`) cannot read the union. */
export function literalUnions (doc: Json): string[] {
  const found: string[] = []
  const oneValue = (m: Json) => m !== null && typeof m === 'object' && (m.const !== undefined || (Array.isArray(m.enum) && m.enum.length === 1))
  const walk = (s: unknown, at: string): void => {
    if (s === null || typeof s !== 'object') return
    for (const key of ['anyOf', 'oneOf']) {
      const members = (s as Json)[key]
      if (Array.isArray(members) && members.length > 1 && members.every(oneValue)) found.push(`${at}/${key}`)
    }
    for (const [key, value] of Object.entries(s)) walk(value, `${at}/${key}`)
  }
  walk(doc, '#')
  return found
}

/** Components (schemas, headers, callbacks) that no operation reaches, through any chain of `$ref`s. */
export function unusedComponents (doc: Json): string[] {
  const reached = new Set<string>()
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return
    const ref = (node as Json).$ref
    if (typeof ref === 'string' && !reached.has(ref)) {
      reached.add(ref)
      const [, , kind, name] = ref.split('/')
      visit(doc.components[kind]?.[name])
    }
    for (const value of Object.values(node)) visit(value)
  }
  visit(doc.paths)
  visit(doc.webhooks)
  const unused: string[] = []
  for (const kind of ['schemas', 'headers', 'callbacks', 'parameters', 'responses']) {
    for (const name of Object.keys(doc.components[kind] ?? {})) if (!reached.has(`#/components/${kind}/${name}`)) unused.push(`#/components/${kind}/${name}`)
  }
  return unused
}
