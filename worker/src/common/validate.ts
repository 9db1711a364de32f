/**
 * Runtime validation with TypeBox's error iterator: no code generation (`eval`), so it also runs
 * inside the workflow sandbox. The `errors` entry alone is imported (not `value`, which pulls in
 * every value operation) to keep the workflow bundle small and quick to build.
 */
import type { TSchema } from '@sinclair/typebox'
import { Errors } from '@sinclair/typebox/errors'
import './formats.js'

const MAX_ISSUES = 5

/** Returns why `value` does not match `schema` (JSON pointers and messages), or undefined; no schema takes anything. */
export function explain (schema: TSchema | undefined, value: unknown): string | undefined {
  if (schema === undefined) return undefined
  const issues: string[] = []
  for (const error of Errors(schema, value)) {
    issues.push(`${error.path === '' ? '/' : error.path}: ${error.message}`)
    if (issues.length === MAX_ISSUES) break
  }
  return issues.length > 0 ? issues.join('; ') : undefined
}
