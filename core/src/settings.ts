/**
 * Settings from environment variables, checked against a TypeBox schema: the one loader of the API
 * (schemas/config.ts) and the worker (env.ts), so both convert, default and report a bad value
 * the same way. Each keeps its own schema and its own cross-setting checks.
 */
import type { Static, TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

export type Env = Record<string, string | undefined>

/** `NODE_ENV` names production in any case and with stray spaces (`Production`, `PRODUCTION `). */
export const isProduction = (nodeEnv: string | undefined) => (nodeEnv ?? '').trim().toLowerCase() === 'production'

/** The levels of LOG_LEVEL, the API's (pino's) and the worker's. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = typeof LOG_LEVELS[number]

/**
 * The settings `schema` declares, read from `env`: strings converted to the declared types, then
 * defaults, then the check. An empty value counts as unset. Throws `fail(message)` naming the
 * first variable at fault and the value it had.
 */
export function loadSettings<T extends TObject> (schema: T, env: Env, fail: (message: string) => Error): Static<T> {
  const raw: Record<string, unknown> = {}
  for (const key of Object.keys(schema.properties)) {
    const value = env[key]
    if (value !== undefined && value !== '') raw[key] = value
  }
  const settings = Value.Default(schema, Value.Convert(schema, raw))
  const first = Value.Errors(schema, settings).First()
  if (first !== undefined) {
    const variable = first.path.split('/')[1] ?? '?'
    throw fail(`Invalid setting ${variable}=${JSON.stringify(env[variable] ?? '')}: ${first.message}`)
  }
  return settings as Static<T>
}
