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

/**
 * Deadlines of the storage calls, below those of every caller: a workflow task (10 s) carries the
 * codec's PUTs and GETs, and an API answer (a result, a start) must say 503 within seconds rather
 * than wait for a store that hangs. A transfer moves at most tens of megabytes (8 s: about 6 MB/s
 * for 50 MB); an existence check or a reachability check is one HEAD (2 s).
 */
export const PAYLOAD_TRANSFER_TIMEOUT_MS = 8000
export const PAYLOAD_CHECK_TIMEOUT_MS = 2000
/** The key `check` asks about: whether it exists does not matter, only that the store answers. */
const REACHABILITY_KEY = '.reachable'

export interface StoredObject {
  bytes: number
  lastModified: Date | null
}

export class PayloadStore {
  private readonly objects: S3Objects
  private presigner: S3Client | null = null

  /** `publicEndpoint`: the store's address as clients reach it, named in presigned URLs instead of the settings' own. */
  constructor (readonly settings: PayloadSettings, private readonly publicEndpoint?: string) {
    this.objects = new S3Objects(settings.s3, PAYLOAD_TRANSFER_TIMEOUT_MS, (what, cause) =>
      new PayloadStorageError(`Payload storage s3://${settings.s3.bucket} failed: ${what}`, { cause }), PAYLOAD_CHECK_TIMEOUT_MS)
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

  async stat (payloadRef: string, signal?: AbortSignal): Promise<StoredObject | null> {
    return await this.objects.head(payloadRef, signal)
  }

  /**
   * Whether the store answers, with these credentials (one HEAD, PAYLOAD_CHECK_TIMEOUT_MS):
   * PayloadStorageError when it does not. Before a presigned URL is handed out, which would
   * otherwise point a client at a store that cannot take its upload.
   */
  async check (signal?: AbortSignal): Promise<void> {
    await this.objects.head(REACHABILITY_KEY, signal)
  }

  /**
   * A presigned URL that reads (GET) or writes (PUT) the object for `expiresIn` seconds from
   * `signedAt`: no storage call, only a signature with the configured credentials. The URL names
   * the public endpoint when there is one: SigV4 signs the host, so the URL is signed for it.
   */
  async presign (method: 'GET' | 'PUT', payloadRef: string, expiresIn: number, signedAt: Date): Promise<string> {
    const [sdk, { getSignedUrl }] = await Promise.all([loadS3Sdk(), import('@aws-sdk/s3-request-presigner')])
    this.presigner ??= s3Client(sdk, { ...this.settings.s3, endpoint: this.publicEndpoint ?? this.settings.s3.endpoint })
    const target = { Bucket: this.settings.s3.bucket, Key: this.settings.s3.prefix + payloadRef }
    const command = method === 'GET' ? new sdk.GetObjectCommand(target) : new sdk.PutObjectCommand(target)
    return await getSignedUrl(this.presigner, command, { expiresIn, signingDate: signedAt })
  }

  close (): void {
    this.objects.close()
    this.presigner?.destroy()
  }
}
