/**
 * The one home of the S3 client: trace storage (trace/store.ts) and large-payload storage
 * (payloads/store.ts) both reach the bucket through it, with the same SERVICE_CLOUD_* settings.
 */
import type { S3Client } from '@aws-sdk/client-s3'

/** Where objects go: a bucket, a key prefix, and how to reach and sign for it. */
export interface S3Settings {
  bucket: string
  /** Key prefix, empty or ending with `/`. */
  prefix: string
  region: string
  endpoint?: string
  accessKeyId?: string
  secretAccessKey?: string
}

/** The SERVICE_CLOUD_* settings both the API and the worker read (trace/settings.ts declares them). */
export interface CloudEnv {
  SERVICE_CLOUD_ACCESS_KEY_ID?: string
  SERVICE_CLOUD_SECRET_ACCESS_KEY?: string
  SERVICE_CLOUD_REGION?: string
  SERVICE_CLOUD_ENDPOINT?: string
}

/** The settings of one bucket and prefix, with the SERVICE_CLOUD_* credentials and endpoint. */
export function s3SettingsFrom (env: CloudEnv, bucket: string, prefix: string): S3Settings {
  return {
    bucket,
    prefix,
    // S3-compatible stores ignore the region but the signature needs one.
    region: env.SERVICE_CLOUD_REGION ?? 'us-east-1',
    endpoint: env.SERVICE_CLOUD_ENDPOINT,
    accessKeyId: env.SERVICE_CLOUD_ACCESS_KEY_ID,
    secretAccessKey: env.SERVICE_CLOUD_SECRET_ACCESS_KEY
  }
}

// The AWS SDK is loaded on first use: a process without a bucket never pays for it (about 10 MiB
// of memory and a few hundred milliseconds of start-up).
export type S3Sdk = typeof import('@aws-sdk/client-s3')
let sdk: Promise<S3Sdk> | undefined
export const loadS3Sdk = async (): Promise<S3Sdk> => await (sdk ??= import('@aws-sdk/client-s3'))

/** A client; `forPresigning`: one whose presigned uploads accept any body (see below). */
export function s3Client ({ S3Client }: S3Sdk, s3: S3Settings, forPresigning = false): S3Client {
  return new S3Client({
    region: s3.region,
    endpoint: s3.endpoint,
    // S3-compatible stores (MinIO, moto, Ceph) address buckets by path, not by host name.
    forcePathStyle: s3.endpoint !== undefined,
    maxAttempts: 2,
    credentials: s3.accessKeyId !== undefined && s3.secretAccessKey !== undefined
      ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }
      : undefined,
    // By default the SDK signs a CRC32 of the (absent) body into a presigned PUT, and the store then
    // refuses every real upload as a checksum mismatch: sign no checksum in presigned URLs.
    ...(forPresigning ? { requestChecksumCalculation: 'WHEN_REQUIRED' as const } : {})
  })
}
