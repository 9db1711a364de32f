/**
 * Where large payloads live: objects under SERVICE_PAYLOAD_S3_PREFIX in the trace bucket, named by
 * a payload reference (`sha256/<hex>` for what the codec stores, `uploads/<uuid>` for what a
 * client uploads through a presigned URL). The S3 client is the one of s3.ts.
 */
import type { S3Client } from '@aws-sdk/client-s3'
import { loadS3Sdk, s3Client, type S3Sdk } from '../s3.js'
import type { PayloadSettings } from './settings.js'

/** Storage answered with an error or not at all (not: the object does not exist). */
export class PayloadStorageError extends Error {
  override name = 'PayloadStorageError'
}

/** A reference names no object (never stored, or removed by the bucket's lifecycle rule). */
export class PayloadMissingError extends Error {
  override name = 'PayloadMissingError'
  constructor (readonly payloadRef: string) {
    super(`Payload ${payloadRef} is not in the payload store`)
  }
}

/** One storage call may take this long: a payload may be tens of megabytes. */
const S3_TIMEOUT_MS = 60_000

export interface StoredObject {
  bytes: number
  lastModified: Date | null
}

export class PayloadStore {
  private s3: S3Client | null = null
  private presigner: S3Client | null = null

  constructor (readonly settings: PayloadSettings) {}

  /** `s3://bucket/key` of a reference: for messages and logs. */
  location (payloadRef: string): string {
    return `s3://${this.settings.s3.bucket}/${this.key(payloadRef)}`
  }

  async put (payloadRef: string, data: Uint8Array, contentType = 'application/json'): Promise<void> {
    await this.call(async (client, { PutObjectCommand }, abortSignal) => await client.send(new PutObjectCommand({
      Bucket: this.settings.s3.bucket, Key: this.key(payloadRef), Body: data, ContentType: contentType
    }), { abortSignal }))
  }

  /** The object's bytes; PayloadMissingError when there is none. */
  async get (payloadRef: string, signal?: AbortSignal): Promise<Uint8Array> {
    return await this.call(async (client, { GetObjectCommand, NoSuchKey }, abortSignal) => {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: this.settings.s3.bucket, Key: this.key(payloadRef) }), { abortSignal })
        return await res.Body!.transformToByteArray()
      } catch (err) {
        if (err instanceof NoSuchKey) throw new PayloadMissingError(payloadRef)
        throw err
      }
    }, signal)
  }

  /** Size and age of the object, or null when there is none. */
  async stat (payloadRef: string, signal?: AbortSignal): Promise<StoredObject | null> {
    return await this.call(async (client, { HeadObjectCommand, NotFound }, abortSignal) => {
      try {
        const res = await client.send(new HeadObjectCommand({ Bucket: this.settings.s3.bucket, Key: this.key(payloadRef) }), { abortSignal })
        return { bytes: res.ContentLength ?? 0, lastModified: res.LastModified ?? null }
      } catch (err) {
        if (err instanceof NotFound || (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null
        throw err
      }
    }, signal)
  }

  /**
   * A presigned URL that reads (GET) or writes (PUT) the object for `expiresIn` seconds from
   * `signedAt`: no storage call, only a signature with the configured credentials.
   */
  async presign (method: 'GET' | 'PUT', payloadRef: string, expiresIn: number, signedAt: Date): Promise<string> {
    const [sdk, { getSignedUrl }] = await Promise.all([loadS3Sdk(), import('@aws-sdk/s3-request-presigner')])
    this.presigner ??= s3Client(sdk, this.settings.s3, true)
    const target = { Bucket: this.settings.s3.bucket, Key: this.key(payloadRef) }
    const command = method === 'GET' ? new sdk.GetObjectCommand(target) : new sdk.PutObjectCommand(target)
    return await getSignedUrl(this.presigner, command, { expiresIn, signingDate: signedAt })
  }

  close (): void {
    this.s3?.destroy()
    this.presigner?.destroy()
  }

  private key (payloadRef: string): string {
    return this.settings.s3.prefix + payloadRef
  }

  /** One bounded storage call; every failure of it other than PayloadMissingError becomes a PayloadStorageError. */
  private async call<T> (call: (client: S3Client, sdk: S3Sdk, signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const sdk = await loadS3Sdk()
    this.s3 ??= s3Client(sdk, this.settings.s3)
    const timeout = AbortSignal.timeout(S3_TIMEOUT_MS)
    try {
      return await call(this.s3, sdk, signal === undefined ? timeout : AbortSignal.any([signal, timeout]))
    } catch (err) {
      if (signal?.aborted === true || err instanceof PayloadMissingError) throw err
      const what = err instanceof sdk.S3ServiceException ? `${err.name} (HTTP ${err.$metadata.httpStatusCode ?? '?'})` : (err as Error).message
      throw new PayloadStorageError(`Payload storage s3://${this.settings.s3.bucket} failed: ${what}`, { cause: err })
    }
  }
}
