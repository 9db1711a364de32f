/**
 * Runtime validation with TypeBox's `Value` module: no code generation (`eval`), so it also runs
 * inside the workflow sandbox.
 */
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import './formats.js'

const MAX_ISSUES = 5

/** Returns why `value` does not match `schema` (JSON pointers and messages), or undefined. */
export function explain (schema: TSchema, value: unknown): string | undefined {
  if (Value.Check(schema, value)) return undefined
  const issues: string[] = []
  for (const error of Value.Errors(schema, value)) {
    issues.push(`${error.path === '' ? '/' : error.path}: ${error.message}`)
    if (issues.length === MAX_ISSUES) break
  }
  return issues.length > 0 ? issues.join('; ') : 'value does not match its schema'
}
