/**
 * Two Ajv instances: text (query, params, headers) is coerced, JSON bodies are not (`{"workflowName": 5}`
 * is a 400, not "5"). Ajv coerces with `+value`, which reads `Infinity`, `0x10`, ` 10`: a coerced
 * number is kept only when its text was a plain finite decimal.
 */
import AjvCompiler, { type Options } from '@fastify/ajv-compiler'
import type { ErrorObject } from 'ajv'

type BuildValidator = ReturnType<typeof AjvCompiler>
type CompilerOptions = Parameters<BuildValidator>[1] & { customOptions?: Options }
type Route = Parameters<ReturnType<BuildValidator>>[0] & { httpPart?: string }

type Validate = ((data: unknown) => unknown) & { errors?: ErrorObject[] | null }

const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/

function plainDecimal (text: string, value: number): boolean {
  return DECIMAL.test(text) && Number.isFinite(value) && !(value === 0 && text.startsWith('-'))
}

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

// Module-wide pools: the twenty-odd encapsulation contexts share two Ajv instances (docs/performance.md).
const coercingPool = AjvCompiler()
const exactPool = AjvCompiler()

export const buildValidator = ((externalSchemas: Parameters<BuildValidator>[0], options?: CompilerOptions) => {
  const coercing = coercingPool(externalSchemas, options)
  const exact = exactPool(externalSchemas, { ...options, customOptions: { ...options?.customOptions, coerceTypes: false } } as CompilerOptions)
  return (route: Route) => (route.httpPart === 'body' ? exact(route) : strictNumbers(coercing(route) as Validate))
}) as BuildValidator
