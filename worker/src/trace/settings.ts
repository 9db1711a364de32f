/**
 * Trace settings, shared by the worker (which writes traces) and the API (which reads them and
 * names their destinations in results): both processes must agree on them, as on
 * SERVICE_CATALOG_ID. Documented in the README ("Execution traces").
 */
import { isAbsolute, resolve } from 'node:path'
import { Type, type Static } from '@sinclair/typebox'
import { s3SettingsFrom, type S3Settings } from '../common/s3.js'

export type { S3Settings }

const OptionalString = Type.Optional(Type.String({ minLength: 1 }))

/** Properties of the API's and the worker's settings schemas. */
export const TraceEnvProperties = {
  SERVICE_TRACE_ENABLED: Type.Boolean({ default: true }),
  SERVICE_TRACE_DIR: Type.String({ minLength: 1, default: './.flowport/traces' }),
  SERVICE_TRACE_S3_BUCKET: OptionalString,
  SERVICE_TRACE_S3_PREFIX: Type.String({ default: 'traces/', pattern: '^$|^[^/].*/$' }),
  SERVICE_TRACE_MAX_VALUE_BYTES: Type.Integer({ minimum: 1024, default: 65_536 }),
  SERVICE_TRACE_SWEEP_MS: Type.Integer({ minimum: 100, default: 5000 }),
  SERVICE_TRACE_LOOKBACK_MS: Type.Integer({ minimum: 0, default: 86_400_000 }),
  SERVICE_CLOUD_ACCESS_KEY_ID: OptionalString,
  SERVICE_CLOUD_SECRET_ACCESS_KEY: OptionalString,
  SERVICE_CLOUD_REGION: OptionalString,
  SERVICE_CLOUD_ENDPOINT: OptionalString
}

export type TraceEnv = Static<ReturnType<typeof Type.Object<typeof TraceEnvProperties>>>

export interface TraceSettings {
  /** Absolute directory of local trace files. */
  dir: string
  s3: S3Settings | null
  /** Largest JSON size of one recorded value (input, output); larger ones are cut with a marker. */
  maxValueBytes: number
  /** Worker only: how often closed runs are looked for whose trace is missing. */
  sweepMs: number
  /** Worker only: how far back the first sweep after a start looks. */
  lookbackMs: number
}

/** The trace settings, or null when tracing is switched off. */
export function traceSettingsFrom (env: TraceEnv): TraceSettings | null {
  if (!env.SERVICE_TRACE_ENABLED) return null
  const dir = isAbsolute(env.SERVICE_TRACE_DIR) ? env.SERVICE_TRACE_DIR : resolve(env.SERVICE_TRACE_DIR)
  const s3 = env.SERVICE_TRACE_S3_BUCKET === undefined ? null : s3SettingsFrom(env, env.SERVICE_TRACE_S3_BUCKET, env.SERVICE_TRACE_S3_PREFIX)
  return { dir, s3, maxValueBytes: env.SERVICE_TRACE_MAX_VALUE_BYTES, sweepMs: env.SERVICE_TRACE_SWEEP_MS, lookbackMs: env.SERVICE_TRACE_LOOKBACK_MS }
}
