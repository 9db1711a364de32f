/**
 * Request validation with two Ajv instances: query strings, params and headers are text and are
 * coerced to their declared types (`?pageSize=10` → 10); JSON bodies are not, so
 * `{"workflowName": 5}` is a ValidationError instead of silently becoming "5".
 * Ajv coerces text with `+value`, which also reads `Infinity`, `1e999`, `0x10`, `0b1`, ` 10` and
 * `1e2`, and its integer check lets an infinite value through (`Infinity % 1` is NaN): a coerced
 * number is kept only when its text was a plain finite decimal.
 * @see https://fastify.dev/docs/latest/Reference/Validation-and-Serialization/#validator-compiler
 */
import AjvCompiler, { type Options } from '@fastify/ajv-compiler'
import type { ErrorObject } from 'ajv'

type BuildValidator = ReturnType<typeof AjvCompiler>
type CompilerOptions = Parameters<BuildValidator>[1] & { customOptions?: Options }
type Route = Parameters<ReturnType<BuildValidator>>[0] & { httpPart?: string }

type Validate = ((data: unknown) => unknown) & { errors?: ErrorObject[] | null }

const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/

/** The text a number was coerced from reads as that number in plain decimal, finite, and not `-0`. */
function plainDecimal (text: string, value: number): boolean {
  return DECIMAL.test(text) && Number.isFinite(value) && !(value === 0 && text.startsWith('-'))
}

/** Wraps a coercing validator: a top-level value coerced from other text than a plain decimal is an error. */
function strictNumbers (validate: Validate): Validate {
  const wrapped: Validate = (data) => {
    const given = data !== null && typeof data === 'object' ? { ...(data as Record<string, unknown>) } : undefined
    const valid = validate(data)
    wrapped.errors = validate.errors
    if (!given) return valid
    const coerced = data as Record<string, unknown>
    const bad = Object.keys(given).filter((key) =>
      typeof given[key] === 'string' && typeof coerced[key] === 'number' && !plainDecimal(given[key], coerced[key]))
    if (bad.length === 0) return valid
    wrapped.errors = [...(valid === false ? validate.errors ?? [] : []), ...bad.map((key): ErrorObject => ({
      instancePath: `/${key}`, schemaPath: '#/type', keyword: 'type', params: {}, message: 'must be a finite number written in plain decimal digits'
    }))]
    return false
  }
  return wrapped
}

// Module-wide pools: Fastify asks for a compiler once per encapsulation context (about twenty),
// and each pool keeps one Ajv per set of shared schemas, so the contexts share two Ajv instances
// instead of building two each (docs/performance.md, "Memory of the API process at start").
const coercingPool = AjvCompiler()
const exactPool = AjvCompiler()

export const buildValidator = ((externalSchemas: Parameters<BuildValidator>[0], options?: CompilerOptions) => {
  const coercing = coercingPool(externalSchemas, options)
  const exact = exactPool(externalSchemas, { ...options, customOptions: { ...options?.customOptions, coerceTypes: false } } as CompilerOptions)
  return (route: Route) => (route.httpPart === 'body' ? exact(route) : strictNumbers(coercing(route) as Validate))
}) as BuildValidator
