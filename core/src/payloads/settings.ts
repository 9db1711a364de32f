/**
 * Large-payload settings (docs/large-payloads.md), shared by the worker and the API: both encode
 * and decode the same references, so both must agree on them, as on the trace bucket. Payloads
 * go to the bucket traces use (SERVICE_TRACE_S3_BUCKET), under their own prefix.
 */
import { Type, type Static } from '@sinclair/typebox'
import { s3SettingsFrom, type CloudEnv, type S3Settings } from '../s3.js'

/** Properties of the API's and the worker's settings schemas. */
export const PayloadEnvProperties = {
  SERVICE_PAYLOAD_REFS_ENABLED: Type.Boolean({ default: true }),
  SERVICE_PAYLOAD_REF_THRESHOLD_BYTES: Type.Integer({ minimum: 1024, default: 256 * 1024 }),
  SERVICE_PAYLOAD_S3_PREFIX: Type.String({ default: 'payloads/', pattern: '^$|^[^/].*/$' })
}

export type PayloadEnv = Static<ReturnType<typeof Type.Object<typeof PayloadEnvProperties>>> & CloudEnv & { SERVICE_TRACE_S3_BUCKET?: string }

export interface PayloadSettings {
  s3: S3Settings
  /** A payload whose data is larger than this many bytes travels through the engine as a reference. */
  thresholdBytes: number
}

/** The large-payload settings, or null when the feature is off (no bucket, or switched off). */
export function payloadSettingsFrom (env: PayloadEnv): PayloadSettings | null {
  if (!env.SERVICE_PAYLOAD_REFS_ENABLED || env.SERVICE_TRACE_S3_BUCKET === undefined) return null
  return { s3: s3SettingsFrom(env, env.SERVICE_TRACE_S3_BUCKET, env.SERVICE_PAYLOAD_S3_PREFIX), thresholdBytes: env.SERVICE_PAYLOAD_REF_THRESHOLD_BYTES }
}
