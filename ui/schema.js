// JSON Schema in the page: a starting value drawn from a schema, its local `$ref`s resolved, and
// validation by @cfworker/json-schema (every keyword, `format` and `$ref` included; it interprets
// schemas rather than compiling them to code, which the page's CSP would refuse). The API validates
// every body again; the page's check is for quick feedback, in plain words, tied to the field.
import { Validator } from './vendor/json-schema.mjs'

/** `#/$defs/x`-style references inside `root`; anything else is left as it is (the validator still follows it). */
export function resolve (schema, root, depth = 0) {
  if (!schema || typeof schema !== 'object' || typeof schema.$ref !== 'string' || !schema.$ref.startsWith('#') || depth > 16) return schema
  let target = root
  for (const part of schema.$ref.slice(1).split('/').filter(Boolean)) {
    target = target?.[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')]
  }
  if (!target || typeof target !== 'object') return schema
  const { $ref: _ref, ...rest } = schema
  return resolve({ ...target, ...rest }, root, depth + 1)
}

/** The first of a schema's types that is not null (a nullable field is edited as its other type). */
export function typeOf (schema) {
  if (!schema || typeof schema !== 'object') return undefined
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null')
  if (schema.type) return schema.type
  if (schema.properties) return 'object'
  if (schema.items) return 'array'
  return undefined
}

/** The non-null branch of `anyOf: [X, {type: null}]` (TypeBox's Union with Null), else undefined. */
export function nullableBranch (schema) {
  const branches = schema?.anyOf ?? schema?.oneOf
  if (!Array.isArray(branches) || branches.length !== 2) return undefined
  const others = branches.filter((b) => b?.type !== 'null')
  return others.length === 1 ? others[0] : undefined
}

const preset = (schema) => {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { value: schema.examples[0] }
  if ('default' in schema) return { value: schema.default }
  if ('const' in schema) return { value: schema.const }
  return null
}

/**
 * A value to open a form with: the schema's example or default, else an object of the properties
 * that have one (and of required objects, filled the same way). A required field with neither is
 * left out, so that it shows as not filled in yet rather than as a mistake: the form never opens
 * with an error.
 */
export function sample (schema, root = schema, depth = 0) {
  schema = resolve(schema, root)
  if (!schema || typeof schema !== 'object' || depth > 8) return undefined
  const given = preset(schema)
  if (given) return given.value
  // An unticked box is a value: false.
  if (typeOf(schema) === 'boolean') return false
  if (typeOf(schema) !== 'object') return undefined
  const value = {}
  const required = new Set(schema.required ?? [])
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const resolved = resolve(property, root)
    const inner = required.has(name) || preset(resolved ?? {}) ? sample(resolved, root, depth + 1) : undefined
    if (inner !== undefined) value[name] = inner
  }
  return value
}

const words = {
  type: (e) => `must be ${(e.error.match(/Expected (.*)\.$/)?.[1] ?? 'another type').replace(/"/g, '').replace(/, /g, ' or ')}`,
  required: () => 'is required',
  minLength: (e, n) => (n === 1 ? 'must not be empty' : `must have at least ${n} characters`),
  maxLength: (e, n) => `must have at most ${n} characters`,
  minimum: (e, n) => `must be ${n} or more`,
  maximum: (e, n) => `must be ${n} or less`,
  exclusiveMinimum: (e, n) => `must be more than ${n}`,
  exclusiveMaximum: (e, n) => `must be less than ${n}`,
  minItems: (e, n) => `must have at least ${n} item${n === 1 ? '' : 's'}`,
  maxItems: (e, n) => `must have at most ${n} items`,
  pattern: () => 'does not have the expected form',
  format: (e) => {
    const format = e.error.match(/format "(.*)"/)?.[1] ?? 'valid value'
    return `must be ${/^[aeiou]/.test(format) ? 'an' : 'a'} ${format}`
  },
  enum: () => 'must be one of the choices',
  const: (e) => e.error.replace(/^Instance does not match/, 'must be'),
  additionalProperties: () => 'is not an allowed property',
  anyOf: () => 'matches none of the allowed shapes',
  oneOf: () => 'matches none of the allowed shapes'
}
/** Keywords whose error only says a part below had one (that part's own error is reported). */
const WRAPPERS = new Set(['properties', 'items', 'prefixItems', '$ref', 'allOf', 'false', 'additionalItems', 'unevaluatedProperties', 'unevaluatedItems', 'dependentSchemas', 'if', 'then', 'else'])

const pointer = (location) => decodeURI(location.replace(/^#/, '')).replace(/%23/g, '#')
const lastNumber = (text) => Number(text.match(/(-?[\d.]+)\)?\.$/)?.[1])

/** A validator's errors as `{path, message}` in plain words: one per problem, at the field it is about. */
function explain (errors) {
  const out = []
  for (const e of errors) {
    if (WRAPPERS.has(e.keyword) || /\/(anyOf|oneOf)\/\d+/.test(e.keywordLocation)) continue
    let path = pointer(e.instanceLocation)
    if (e.keyword === 'required' || e.keyword === 'additionalProperties') {
      const key = e.error.match(/property "(.*)"/i)?.[1] ?? e.error.match(/Property "(.*)" does not/)?.[1]
      if (key !== undefined) path = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
    }
    const say = words[e.keyword]
    out.push({ path, message: say ? say(e, lastNumber(e.error)) : e.error })
  }
  return out
}

const validators = new WeakMap()

/** Problems of `value` against `schema`, as `{path, message}` (path a JSON pointer, '' for the whole value); empty when it fits. */
export function validate (schema, value) {
  if (!schema || typeof schema !== 'object') return []
  let validator = validators.get(schema)
  if (!validator) {
    validator = new Validator(schema, '2020-12', false)
    validators.set(schema, validator)
  }
  // Nothing entered is sent as null: fine where the schema takes null (e.g. "any value").
  if (value === undefined) return validator.validate(null).valid ? [] : [{ path: '', message: 'is required' }]
  return explain(validator.validate(value).errors)
}

/** Parses a JSON view's text and checks it: `{value, errors}`. Empty text means no value. */
export function check (schema, text) {
  if (text.trim() === '') return { value: undefined, errors: [] }
  let value
  try {
    value = JSON.parse(text)
  } catch (err) {
    return { value: undefined, errors: [{ path: '', message: `is not JSON: ${err.message}` }], notJson: true }
  }
  return { value, errors: schema ? validate(schema, value) : [] }
}

export const pretty = (value) => JSON.stringify(value, null, 2)
