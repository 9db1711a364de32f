/**
 * Request validation with two Ajv instances: query strings, params and headers are text and are
 * coerced to their declared types (`?pageSize=10` → 10); JSON bodies are not, so
 * `{"workflowName": 5}` is a ValidationError instead of silently becoming "5".
 * @see https://fastify.dev/docs/latest/Reference/Validation-and-Serialization/#validator-compiler
 */
import AjvCompiler, { type Options } from '@fastify/ajv-compiler'

type BuildValidator = ReturnType<typeof AjvCompiler>
type CompilerOptions = Parameters<BuildValidator>[1] & { customOptions?: Options }
type Route = Parameters<ReturnType<BuildValidator>>[0] & { httpPart?: string }

export const buildValidator = ((externalSchemas: Parameters<BuildValidator>[0], options?: CompilerOptions) => {
  const coercing = AjvCompiler()(externalSchemas, options)
  const exact = AjvCompiler()(externalSchemas, { ...options, customOptions: { ...options?.customOptions, coerceTypes: false } } as CompilerOptions)
  return (route: Route) => (route.httpPart === 'body' ? exact(route) : coercing(route))
}) as BuildValidator
