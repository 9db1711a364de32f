/**
 * Settings from environment variables, checked against a TypeBox schema: the one loader of the API
 * (schemas/config.ts) and the worker (env.ts), so both convert, default and report a bad value
 * the same way. Each keeps its own schema and its own cross-setting checks.
 */
import { Type, type Static, type TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

export type Env = Record<string, string | undefined>

/** `NODE_ENV` names production in any case and with stray spaces (`Production`, `PRODUCTION `). */
export const isProduction = (nodeEnv: string | undefined) => (nodeEnv ?? '').trim().toLowerCase() === 'production'

/** The levels of LOG_LEVEL, the API's (pino's) and the worker's. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = typeof LOG_LEVELS[number]

/** The catalog a worker serves, and the API starts runs in, when SERVICE_CATALOG_ID is unset. */
export const DEFAULT_CATALOG_ID = 'main'

// The settings both processes read, each declared (with its default) once.
/** A setting that may be unset, never empty. */
export const OptionalString = Type.Optional(Type.String({ minLength: 1 }))
/** `production`: JSON log lines; anything else: readable ones. */
export const NodeEnvSetting = Type.String({ default: 'development' })
export const LogLevelSetting = Type.Union(LOG_LEVELS.map((l) => Type.Literal(l)), { default: 'info' })
export const CatalogIdSetting = Type.String({ minLength: 1, maxLength: 200, default: DEFAULT_CATALOG_ID })
/** The engine: where, which namespace, and how to authenticate (tls.ts reads the TLS ones). */
export const EngineEnvProperties = {
  TEMPORAL_ADDRESS: Type.String({ minLength: 1, default: 'localhost:7233' }),
  TEMPORAL_NAMESPACE: Type.String({ minLength: 1, default: 'default' }),
  TEMPORAL_API_KEY: OptionalString,
  TEMPORAL_TLS: Type.Boolean({ default: false }),
  TEMPORAL_TLS_SERVER_NAME: Type.Optional(Type.String({ minLength: 1 })),
  TEMPORAL_TLS_CA_PATH: Type.Optional(Type.String({ minLength: 1 })),
  TEMPORAL_TLS_CERT_PATH: Type.Optional(Type.String({ minLength: 1 })),
  TEMPORAL_TLS_KEY_PATH: Type.Optional(Type.String({ minLength: 1 }))
}

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
