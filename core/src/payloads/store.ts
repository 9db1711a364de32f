/**
 * Where large payloads live: objects under SERVICE_PAYLOAD_S3_PREFIX in the trace bucket, named by
 * a payload reference (`sha256/<hex>` for what the codec stores, `uploads/<uuid>` for what a
 * client uploads through a presigned URL). The S3 client is the one of s3.ts.
 */
import type { S3Client } from '@aws-sdk/client-s3'
import { loadS3Sdk, S3Objects, s3Client } from '../s3.js'
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
  private readonly objects: S3Objects
  private presigner: S3Client | null = null

  constructor (readonly settings: PayloadSettings) {
    this.objects = new S3Objects(settings.s3, S3_TIMEOUT_MS, (what, cause) =>
      new PayloadStorageError(`Payload storage s3://${settings.s3.bucket} failed: ${what}`, { cause }))
  }

  /** `s3://bucket/key` of a reference: for messages and logs. */
  location (payloadRef: string): string {
    return `s3://${this.settings.s3.bucket}/${this.settings.s3.prefix}${payloadRef}`
  }

  async put (payloadRef: string, data: Uint8Array, contentType = 'application/json'): Promise<void> {
    await this.objects.put(payloadRef, data, contentType)
  }

  /** The object's bytes; PayloadMissingError when there is none. */
  async get (payloadRef: string, signal?: AbortSignal): Promise<Uint8Array> {
    const bytes = await this.objects.get(payloadRef, signal)
    if (bytes === null) throw new PayloadMissingError(payloadRef)
    return bytes
  }

  /** Size and age of the object, or null when there is none. */
  async stat (payloadRef: string, signal?: AbortSignal): Promise<StoredObject | null> {
    return await this.objects.head(payloadRef, signal)
  }

  /**
   * A presigned URL that reads (GET) or writes (PUT) the object for `expiresIn` seconds from
   * `signedAt`: no storage call, only a signature with the configured credentials.
   */
  async presign (method: 'GET' | 'PUT', payloadRef: string, expiresIn: number, signedAt: Date): Promise<string> {
    const [sdk, { getSignedUrl }] = await Promise.all([loadS3Sdk(), import('@aws-sdk/s3-request-presigner')])
    this.presigner ??= s3Client(sdk, this.settings.s3, true)
    const target = { Bucket: this.settings.s3.bucket, Key: this.settings.s3.prefix + payloadRef }
    const command = method === 'GET' ? new sdk.GetObjectCommand(target) : new sdk.PutObjectCommand(target)
    return await getSignedUrl(this.presigner, command, { expiresIn, signingDate: signedAt })
  }

  close (): void {
    this.objects.close()
    this.presigner?.destroy()
  }
}
