// A JSON editor's two helpers: a starting value drawn from a JSON Schema (its examples first), and
// a small validator for the keywords the catalog's schemas use (TypeBox output: type, properties,
// required, additionalProperties, items, enum/const, bounds, anyOf/oneOf/allOf). It gives quick
// feedback in the page; the API validates every body with the full schema and its answer is shown
// as it comes, so a keyword this file does not know (e.g. `format`, `$ref`) is only checked there.

/** A value that satisfies the schema's shape, for the editor to start from. */
export function sample (schema, depth = 0) {
  if (!schema || typeof schema !== 'object' || depth > 8) return null
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if ('default' in schema) return schema.default
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  const branches = schema.anyOf ?? schema.oneOf
  if (Array.isArray(branches)) {
    const branch = branches.find((b) => b?.type !== 'null') ?? branches[0]
    return sample(branch, depth + 1)
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  switch (type) {
    case 'object': {
      const value = {}
      const required = new Set(schema.required ?? [])
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        if (required.has(name)) value[name] = sample(property, depth + 1)
      }
      return value
    }
    case 'array': return []
    case 'string': return ''
    case 'integer':
    case 'number': return typeof schema.minimum === 'number' ? schema.minimum : 0
    case 'boolean': return false
    case 'null': return null
    default: return schema.properties ? sample({ ...schema, type: 'object' }, depth) : null
  }
}

const typeOf = (value) => {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number'
  return typeof value
}

const fits = (type, actual) => type === actual || (type === 'number' && actual === 'integer')
const show = (value) => JSON.stringify(value)

/** Problems of `value` against `schema`, as `{path, message}`; empty when it fits. */
export function validate (schema, value, path = '') {
  if (schema === true || schema === undefined || schema === null) return []
  if (schema === false) return [{ path, message: 'is not allowed' }]
  const errors = []
  const at = path || '/'
  const actual = typeOf(value)
  if (schema.type !== undefined) {
    const types = [schema.type].flat()
    if (!types.some((t) => fits(t, actual))) return [{ path: at, message: `must be ${types.join(' or ')}` }]
  }
  if ('const' in schema && show(schema.const) !== show(value)) errors.push({ path: at, message: `must be ${show(schema.const)}` })
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => show(e) === show(value))) {
    errors.push({ path: at, message: `must be one of ${schema.enum.map(show).join(', ')}` })
  }
  if (actual === 'integer' || actual === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push({ path: at, message: `must be ≥ ${schema.minimum}` })
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push({ path: at, message: `must be ≤ ${schema.maximum}` })
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) errors.push({ path: at, message: `must be > ${schema.exclusiveMinimum}` })
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) errors.push({ path: at, message: `must be < ${schema.exclusiveMaximum}` })
  }
  if (actual === 'string') {
    const length = [...value].length
    if (typeof schema.minLength === 'number' && length < schema.minLength) errors.push({ path: at, message: `must have at least ${schema.minLength} characters` })
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) errors.push({ path: at, message: `must have at most ${schema.maxLength} characters` })
    if (typeof schema.pattern === 'string') {
      try {
        if (!new RegExp(schema.pattern, 'u').test(value)) errors.push({ path: at, message: `must match ${schema.pattern}` })
      } catch { /* a pattern this browser cannot compile: the API checks it */ }
    }
  }
  if (actual === 'array') {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) errors.push({ path: at, message: `must have at least ${schema.minItems} items` })
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) errors.push({ path: at, message: `must have at most ${schema.maxItems} items` })
    if (schema.items && typeof schema.items === 'object') value.forEach((item, i) => errors.push(...validate(schema.items, item, `${path}/${i}`)))
  }
  if (actual === 'object') {
    const properties = schema.properties ?? {}
    for (const name of schema.required ?? []) {
      if (!Object.hasOwn(value, name)) errors.push({ path: at, message: `must have property ${show(name)}` })
    }
    for (const [name, item] of Object.entries(value)) {
      const where = `${path}/${name}`
      if (Object.hasOwn(properties, name)) errors.push(...validate(properties[name], item, where))
      else if (schema.additionalProperties === false) errors.push({ path: where, message: 'is not an allowed property' })
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') errors.push(...validate(schema.additionalProperties, item, where))
    }
  }
  for (const part of schema.allOf ?? []) errors.push(...validate(part, value, path))
  const branches = schema.anyOf ?? schema.oneOf
  if (Array.isArray(branches) && !branches.some((b) => validate(b, value, path).length === 0)) {
    errors.push({ path: at, message: 'matches none of the allowed shapes' })
  }
  return errors
}

/** Parses the editor's text and checks it: `{value, errors}`. Empty text means no value. */
export function check (schema, text) {
  if (text.trim() === '') return { value: undefined, errors: [] }
  let value
  try {
    value = JSON.parse(text)
  } catch (err) {
    return { value: undefined, errors: [{ path: '/', message: `not JSON: ${err.message}` }] }
  }
  return { value, errors: schema ? validate(schema, value) : [] }
}

export const pretty = (value) => JSON.stringify(value, null, 2)
