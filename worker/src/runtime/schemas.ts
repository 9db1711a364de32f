/**
 * Checks that a definition's schema can be published as JSON Schema and used for validation:
 * a TypeBox schema made only of JSON kinds, without transforms (they would never run).
 */
import { Kind, TransformKind, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

const NOT_JSON = new Set(['AsyncIterator', 'BigInt', 'Constructor', 'Date', 'Function', 'Iterator', 'Promise', 'RegExp', 'Symbol', 'Uint8Array', 'Undefined', 'Void'])

function walk (node: unknown, path: string): string | undefined {
  if (typeof node === 'function' || typeof node === 'bigint' || typeof node === 'symbol') return `${path} is a ${typeof node}`
  if (typeof node !== 'object' || node === null) return undefined
  const kind = (node as Record<symbol, unknown>)[Kind]
  if (typeof kind === 'string' && NOT_JSON.has(kind)) return `${path || '/'} is Type.${kind}(), which JSON Schema cannot describe`
  if ((node as Record<symbol, unknown>)[TransformKind] !== undefined) return `${path || '/'} is a Type.Transform(), which Flowport does not run`
  for (const [key, value] of Object.entries(node)) {
    const problem = walk(value, `${path}/${key}`)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** Undefined when the schema is fine, else what is wrong with it. */
export function schemaProblem (schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null || typeof (schema as Record<symbol, unknown>)[Kind] !== 'string') {
    return 'is not a TypeBox schema'
  }
  const problem = walk(schema, '')
  if (problem !== undefined) return problem
  try {
    Value.Check(schema as TSchema, null)
  } catch (err) {
    return `cannot be checked: ${err instanceof Error ? err.message : String(err)}`
  }
  return undefined
}

/** The published form: plain JSON (TypeBox's symbol keys dropped). */
export function toJsonSchema (schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>
}
