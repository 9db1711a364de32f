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

export function s3Client ({ S3Client }: S3Sdk, s3: S3Settings): S3Client {
  return new S3Client({
    region: s3.region,
    endpoint: s3.endpoint,
    // S3-compatible stores (MinIO, moto, Ceph) address buckets by path, not by host name.
    forcePathStyle: s3.endpoint !== undefined,
    maxAttempts: 2,
    credentials: s3.accessKeyId !== undefined && s3.secretAccessKey !== undefined
      ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }
      : undefined,
    // A checksum only where an operation requires one. By default the SDK signs a CRC32 of the
    // (absent) body into a presigned PUT, and the store then refuses every real upload as a
    // checksum mismatch; and our own writes (whole strings and byte arrays) are already covered by
    // the signature's SHA-256 of the body, so a CRC32 of each would only cost CPU per run (issue 55).
    requestChecksumCalculation: 'WHEN_REQUIRED'
  })
}

/**
 * The objects under one bucket and prefix, as trace and payload storage use them: each call bounded
 * by `timeoutMs` (and the caller's signal), a HEAD or a listing page by `quickTimeoutMs`; an absent
 * object is null, and any other failure becomes the store's own error, made by `failure` from what
 * went wrong (a store that did not answer in time: "did not answer within N ms").
 */
export class S3Objects {
  #client: S3Client | undefined

  constructor (
    readonly s3: S3Settings,
    private readonly timeoutMs: number,
    private readonly failure: (what: string, cause: unknown) => Error,
    private readonly quickTimeoutMs = timeoutMs
  ) {}

  async put (key: string, body: Uint8Array | string, contentType = 'application/json'): Promise<void> {
    await this.call(async (client, { PutObjectCommand }, abortSignal) => await client.send(new PutObjectCommand({
      Bucket: this.s3.bucket, Key: this.s3.prefix + key, Body: body, ContentType: contentType
    }), { abortSignal }))
  }

  async get (key: string, signal?: AbortSignal): Promise<Uint8Array | null> {
    return await this.call(async (client, { GetObjectCommand, NoSuchKey }, abortSignal) => {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: this.s3.bucket, Key: this.s3.prefix + key }), { abortSignal })
        return await res.Body!.transformToByteArray()
      } catch (err) {
        if (err instanceof NoSuchKey) return null
        throw err
      }
    }, signal)
  }

  async head (key: string, signal?: AbortSignal): Promise<{ bytes: number, lastModified: Date | null } | null> {
    return await this.call(async (client, { HeadObjectCommand, NotFound }, abortSignal) => {
      try {
        const res = await client.send(new HeadObjectCommand({ Bucket: this.s3.bucket, Key: this.s3.prefix + key }), { abortSignal })
        return { bytes: res.ContentLength ?? 0, lastModified: res.LastModified ?? null }
      } catch (err) {
        if (err instanceof NotFound || (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null
        throw err
      }
    }, signal, this.quickTimeoutMs)
  }

  /** The keys (without the prefix) that begin with `keyPrefix`. */
  async list (keyPrefix: string, signal?: AbortSignal): Promise<string[]> {
    const { bucket, prefix } = this.s3
    const keys: string[] = []
    let token: string | undefined
    do {
      const res = await this.call(async (client, { ListObjectsV2Command }, abortSignal) => await client.send(new ListObjectsV2Command({
        Bucket: bucket, Prefix: prefix + keyPrefix, ContinuationToken: token
      }), { abortSignal }), signal, this.quickTimeoutMs)
      for (const { Key } of res.Contents ?? []) if (Key !== undefined) keys.push(Key.slice(prefix.length))
      token = res.IsTruncated === true ? res.NextContinuationToken : undefined
    } while (token !== undefined)
    return keys
  }

  close (): void {
    this.#client?.destroy()
  }

  private async call<T> (call: (client: S3Client, sdk: S3Sdk, signal: AbortSignal) => Promise<T>, signal?: AbortSignal, timeoutMs = this.timeoutMs): Promise<T> {
    const sdk = await loadS3Sdk()
    this.#client ??= s3Client(sdk, this.s3)
    const timeout = AbortSignal.timeout(timeoutMs)
    try {
      return await call(this.#client, sdk, signal === undefined ? timeout : AbortSignal.any([signal, timeout]))
    } catch (err) {
      if (signal?.aborted === true) throw err
      const what = timeout.aborted
        ? `it did not answer within ${timeoutMs} ms`
        : err instanceof sdk.S3ServiceException ? `${err.name} (HTTP ${err.$metadata.httpStatusCode ?? '?'})` : (err as Error).message
      throw this.failure(what, err)
    }
  }
}
