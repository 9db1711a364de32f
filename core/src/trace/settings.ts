/**
 * Trace settings, shared by the worker (which writes traces) and the API (which reads them and
 * names their destinations in results): both processes must agree on them, as on
 * SERVICE_CATALOG_ID. Documented in (docs/traces.md).
 */
import { isAbsolute, resolve } from 'node:path'
import { Type, type Static } from '@sinclair/typebox'
import { s3SettingsFrom, type S3Settings } from '../s3.js'
import { OptionalString } from '../settings.js'

/** Properties of the API's and the worker's settings schemas. */
export const TraceEnvProperties = {
  SERVICE_TRACE_ENABLED: Type.Boolean({ default: true }),
  SERVICE_TRACE_DIR: Type.String({ minLength: 1, default: './.flowport/traces' }),
  SERVICE_TRACE_S3_BUCKET: OptionalString,
  /** `false`: traces stay in SERVICE_TRACE_DIR while the bucket still holds large payloads (`npm start`). */
  SERVICE_TRACE_S3_ENABLED: Type.Boolean({ default: true }),
  SERVICE_TRACE_S3_PREFIX: Type.String({ default: 'traces/', pattern: '^$|^[^/].*/$' }),
  SERVICE_TRACE_MAX_VALUE_BYTES: Type.Integer({ minimum: 1024, default: 65_536 }),
  SERVICE_TRACE_SWEEP_MS: Type.Integer({ minimum: 100, default: 5000 }),
  SERVICE_TRACE_LOOKBACK_MS: Type.Integer({ minimum: 0, default: 86_400_000 }),
  /** Worker: local trace files older than this are removed (7 days); 0 keeps them. */
  SERVICE_TRACE_LOCAL_RETENTION_MS: Type.Integer({ minimum: 0, default: 604_800_000 }),
  /** Worker: most failed-attempt records waiting to be written (write-queue.ts). */
  SERVICE_TRACE_WRITE_QUEUE_MAX: Type.Integer({ minimum: 1, default: 1000 }),
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
  /** Worker only: local files older than this are removed; 0: kept for ever. */
  localRetentionMs: number
  /** Worker only: most failed-attempt records waiting to be written; more are dropped. */
  writeQueueMax: number
}

/** The trace settings, or null when tracing is switched off. */
export function traceSettingsFrom (env: TraceEnv): TraceSettings | null {
  if (!env.SERVICE_TRACE_ENABLED) return null
  const dir = isAbsolute(env.SERVICE_TRACE_DIR) ? env.SERVICE_TRACE_DIR : resolve(env.SERVICE_TRACE_DIR)
  const s3 = env.SERVICE_TRACE_S3_BUCKET === undefined || !env.SERVICE_TRACE_S3_ENABLED ? null : s3SettingsFrom(env, env.SERVICE_TRACE_S3_BUCKET, env.SERVICE_TRACE_S3_PREFIX)
  return {
    dir,
    s3,
    maxValueBytes: env.SERVICE_TRACE_MAX_VALUE_BYTES,
    sweepMs: env.SERVICE_TRACE_SWEEP_MS,
    lookbackMs: env.SERVICE_TRACE_LOOKBACK_MS,
    localRetentionMs: env.SERVICE_TRACE_LOCAL_RETENTION_MS,
    writeQueueMax: env.SERVICE_TRACE_WRITE_QUEUE_MAX
  }
}

/**
 * What the schema cannot say, or null. A retention shorter than the lookback would have every
 * start of a worker without a bucket rewrite the local traces the retention has just removed.
 */
export function traceEnvProblem (env: TraceEnv): string | null {
  const retention = env.SERVICE_TRACE_LOCAL_RETENTION_MS
  if (retention !== 0 && retention < env.SERVICE_TRACE_LOOKBACK_MS) {
    return `Invalid setting SERVICE_TRACE_LOCAL_RETENTION_MS=${retention}: must be 0 (keep local traces) or at least SERVICE_TRACE_LOOKBACK_MS (${env.SERVICE_TRACE_LOOKBACK_MS})`
  }
  return null
}
