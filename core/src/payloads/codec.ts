/**
 * The claim check: a Temporal PayloadCodec that stores a payload larger than the threshold in the
 * payload store and lets a small reference travel through the engine in its place. The API's
 * client and the worker load the same codec, so workflow code never sees a reference; the format
 * and why it is plain JSON are in docs/large-payloads.md, "How it works".
 */
import { createHash } from 'node:crypto'
import type { Payload, PayloadCodec } from '@temporalio/common'
import { PayloadStorageError, type PayloadStore } from './store.js'

/** Metadata key that marks a reference payload; its value is the reference format's version. */
export const REFERENCE_METADATA_KEY = 'flowport-payload-ref'
/** Metadata key holding the original payload's metadata (JSON, values in base64). */
const ORIGINAL_METADATA_KEY = 'flowport-payload-metadata'
const VERSION = '1'

/** What a reference payload says: where the data is, how large it is and its SHA-256. */
export interface PayloadReference {
  /** `sha256/<hex>`: the object's name under SERVICE_PAYLOAD_S3_PREFIX. */
  payloadRef: string
  bytes: number
  sha256: string
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The reference a payload carries, or null for an ordinary payload. Reads nothing from storage. */
export function referenceOf (payload: Payload | null | undefined): PayloadReference | null {
  const marker = payload?.metadata?.[REFERENCE_METADATA_KEY]
  if (marker === undefined || marker === null || payload?.data == null) return null
  return JSON.parse(decoder.decode(payload.data)) as PayloadReference
}

/**
 * How long an object this process stored or read counts as present without another PUT: the same
 * large value often crosses the codec several times in a row (a step's result becomes the
 * workflow's output), and each PUT of tens of megabytes lengthens the workflow task that carries
 * it. Bounded in time so that a bucket lifecycle rule (docs/large-payloads.md) always sees a fresh
 * write of a value that is still in use, and in size so that memory stays small.
 */
const KNOWN_FOR_MS = 10 * 60_000
const KNOWN_MAX = 1000

export class ClaimCheckCodec implements PayloadCodec {
  /** Reference → when this process last stored or read its object. */
  private readonly known = new Map<string, number>()

  constructor (private readonly store: PayloadStore) {}

  async encode (payloads: Payload[]): Promise<Payload[]> {
    return await Promise.all(payloads.map(async (payload) =>
      (payload.data?.length ?? 0) > this.store.settings.thresholdBytes ? await this.checkIn(payload) : payload))
  }

  async decode (payloads: Payload[]): Promise<Payload[]> {
    return await Promise.all(payloads.map(async (payload) => {
      const reference = referenceOf(payload)
      return reference === null ? payload : await this.checkOut(reference, payload)
    }))
  }

  /** Stores the data under its SHA-256 (the same value stored twice is one object) and answers the reference. */
  private async checkIn (payload: Payload): Promise<Payload> {
    const data = payload.data!
    const sha256 = createHash('sha256').update(data).digest('hex')
    const reference: PayloadReference = { payloadRef: `sha256/${sha256}`, bytes: data.length, sha256 }
    const encoding = payload.metadata?.encoding
    if (!this.isKnown(reference.payloadRef)) {
      await this.store.put(reference.payloadRef, data, encoding !== undefined && decoder.decode(encoding) === 'json/plain' ? 'application/json' : 'application/octet-stream')
      this.remember(reference.payloadRef)
    }
    const original = Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]))
    return {
      metadata: {
        encoding: encoder.encode('json/plain'),
        [REFERENCE_METADATA_KEY]: encoder.encode(VERSION),
        [ORIGINAL_METADATA_KEY]: encoder.encode(JSON.stringify(original))
      },
      data: encoder.encode(JSON.stringify(reference))
    }
  }

  /** The original payload of a reference; refuses data that is not what the reference says. */
  private async checkOut (reference: PayloadReference, payload: Payload): Promise<Payload> {
    const data = await this.store.get(reference.payloadRef)
    const sha256 = createHash('sha256').update(data).digest('hex')
    if (sha256 !== reference.sha256) {
      throw new PayloadStorageError(`Payload ${this.store.location(reference.payloadRef)} does not match its reference (SHA-256 ${sha256}, expected ${reference.sha256})`)
    }
    this.remember(reference.payloadRef)
    const original = JSON.parse(decoder.decode(payload.metadata![ORIGINAL_METADATA_KEY] ?? encoder.encode('{}'))) as Record<string, string>
    return { metadata: Object.fromEntries(Object.entries(original).map(([k, v]) => [k, Buffer.from(v, 'base64')])), data }
  }

  private isKnown (payloadRef: string): boolean {
    const at = this.known.get(payloadRef)
    return at !== undefined && Date.now() - at < KNOWN_FOR_MS
  }

  private remember (payloadRef: string): void {
    this.known.delete(payloadRef)
    this.known.set(payloadRef, Date.now())
    // Oldest first (insertion order): drop beyond the bound.
    for (const key of this.known.keys()) {
      if (this.known.size <= KNOWN_MAX) break
      this.known.delete(key)
    }
  }
}
