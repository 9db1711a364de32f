/** Values against the catalog's JSON Schemas, before anything reaches the engine. */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { validationError, type Issue } from './api-error.js'
import { patternRule } from '../schemas/common.js'

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule.default

const ajv = new Ajv({ allErrors: true, strict: false })
addFormats(ajv)
const compiled = new Map<string, ValidateFunction>()

export function validatorFor (schema: object): ValidateFunction {
  const key = JSON.stringify(schema)
  let validate = compiled.get(key)
  if (!validate) {
    validate = ajv.compile(schema)
    compiled.set(key, validate)
  }
  return validate
}

export function assertMatches (schema: object, value: unknown, where: Issue['in']): void {
  const validate = validatorFor(schema)
  if (validate(value)) return
  throw validationError((validate.errors ?? []).map((e) => issueFromAjv(e, where)))
}

export function issueFromAjv (e: Pick<ErrorObject, 'instancePath' | 'params' | 'message'>, where: string): Issue {
  const params = e.params as Record<string, unknown>
  const child = params.missingProperty ?? params.additionalProperty
  const path = child === undefined ? e.instancePath : `${e.instancePath}/${String(child)}`
  const rule = typeof params.pattern === 'string' ? patternRule(params.pattern) : undefined
  return { path: path || '/', in: where, message: rule ?? e.message ?? 'is invalid' }
}

/** Why `schema` does not compile with the validator above (a catalog file's check), or null when it does. */
export function schemaProblem (schema: unknown): string | null {
  try {
    validatorFor(schema as object)
    return null
  } catch (err) {
    return (err as Error).message
  }
}
