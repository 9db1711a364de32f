/**
 * Large payloads by reference, the API's side (docs/large-payloads.md): presigned uploads of
 * inputs (POST /payloads, `inputRef`), and values the engine holds by reference answered inline up
 * to SERVICE_PAYLOAD_INLINE_MAX_BYTES, beyond it as a presigned download (`inputRef`/`outputRef`
 * of results and inputs). The codec itself (core/src/payloads/codec.ts) is loaded by the engine
 * client (plugins/app/engine/).
 */
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { temporal } from '@temporalio/proto'
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js'
import { PayloadMissingError, PayloadStorageError, referenceOf, type PayloadReference, type PayloadStore } from '@flowport/core/payloads'
import type { PayloadLink, PayloadUpload } from '../schemas/payloads.js'
import { ApiError, RETRY_AFTER_SECONDS, validationError } from './api-error.js'
import { loneSurrogateAt, nestsDeeperThan } from './json-body.js'

/** A value the engine holds by reference and that is too large to answer inline: answered as a PayloadLink. */
export class LargeValue {
  constructor (readonly reference: PayloadReference) {}
  toJSON (): PayloadReference { return this.reference }
}

/** The payload store, or 404 PayloadStorageNotConfiguredError when the feature is off. */
export function payloadStore (fastify: FastifyInstance): PayloadStore {
  if (fastify.payloads === null) {
    throw new ApiError(404, 'PayloadStorageNotConfiguredError',
      'Large payloads are off on this API: no object store is configured (SERVICE_TRACE_S3_BUCKET, SERVICE_PAYLOAD_REFS_ENABLED)')
  }
  return fastify.payloads.store
}

/** The API error of a payload-store failure (also when the codec meets it inside an engine call); undefined for any other error. */
export function payloadError (err: unknown): ApiError | undefined {
  if (err instanceof PayloadMissingError) {
    return new ApiError(404, 'PayloadNotFoundError', `Payload ${err.payloadRef} is not in the payload store (never stored, or removed by the bucket's lifecycle rule)`)
  }
  if (err instanceof PayloadStorageError) return new ApiError(503, 'PayloadStorageUnavailableError', err.message, { headers: { 'retry-after': RETRY_AFTER_SECONDS } })
  return undefined
}

/** Presigned URLs are signed as of the start of the minute, so answers within one minute are equal (and so are their ETags). */
const SIGNING_STEP_MS = 60_000
/** The longest a presigned URL may live (S3's limit: seven days). */
const MAX_PRESIGN_S = 7 * 24 * 3600

async function presigned (fastify: FastifyInstance, method: 'GET' | 'PUT', payloadRef: string): Promise<{ url: string, expiresAt: string }> {
  const signedAt = new Date(Math.floor(Date.now() / SIGNING_STEP_MS) * SIGNING_STEP_MS)
  // At least the setting's lifetime is left when the answer leaves.
  const expiresIn = Math.min(fastify.config.SERVICE_PAYLOAD_URL_TTL_S + SIGNING_STEP_MS / 1000, MAX_PRESIGN_S)
  const url = await payloadStore(fastify).presign(method, payloadRef, expiresIn, signedAt)
  return { url, expiresAt: new Date(signedAt.getTime() + expiresIn * 1000).toISOString() }
}

/** POST /payloads: a fresh upload reference and the presigned URL to PUT the input to. */
export async function createUpload (fastify: FastifyInstance): Promise<PayloadUpload> {
  const payloadRef = `uploads/${randomUUID()}`
  const { url, expiresAt } = await presigned(fastify, 'PUT', payloadRef)
  return { payloadRef, uploadUrl: url, method: 'PUT', expiresAt }
}

/**
 * The input a client uploaded under `inputRef`: 404 PayloadNotFoundError when there is none or it
 * is older than SERVICE_PAYLOAD_UPLOAD_TTL_S, 413 when larger than SERVICE_PAYLOAD_UPLOAD_MAX_BYTES,
 * 400 when it is not JSON.
 */
export async function uploadedInput (fastify: FastifyInstance, inputRef: string, signal?: AbortSignal): Promise<unknown> {
  const store = payloadStore(fastify)
  const { SERVICE_PAYLOAD_UPLOAD_TTL_S: ttl, SERVICE_PAYLOAD_UPLOAD_MAX_BYTES: max } = fastify.config
  try {
    const stored = await store.stat(inputRef, signal)
    if (stored === null) throw new PayloadMissingError(inputRef)
    if (stored.lastModified !== null && Date.now() - stored.lastModified.getTime() > ttl * 1000) {
      throw new ApiError(404, 'PayloadNotFoundError', `Payload ${inputRef} has expired: it was uploaded more than ${ttl} s ago (SERVICE_PAYLOAD_UPLOAD_TTL_S); upload it again`)
    }
    if (stored.bytes > max) {
      throw new ApiError(413, 'PayloadTooLargeError', `Payload ${inputRef} has ${stored.bytes} bytes, more than SERVICE_PAYLOAD_UPLOAD_MAX_BYTES (${max})`)
    }
    const text = Buffer.from(await store.get(inputRef, signal)).toString('utf8')
    // The checks a request body gets (plugins/external/json-body.ts): what follows the parser recurses per level.
    const maxDepth = fastify.config.SERVICE_JSON_MAX_DEPTH
    if (nestsDeeperThan(text, maxDepth)) {
      throw validationError([{ path: '/inputRef', in: 'body', message: `the uploaded payload must not nest arrays and objects more than ${maxDepth} levels deep` }])
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (err) {
      throw validationError([{ path: '/inputRef', in: 'body', message: `the uploaded payload is not JSON: ${(err as Error).message}` }])
    }
    const at = /\\u[dD][89a-fA-F]/.test(text) ? loneSurrogateAt(value) : undefined
    if (at !== undefined) throw validationError([{ path: at, in: 'input', message: 'must be well-formed Unicode (it contains a lone surrogate)' }])
    return value
  } catch (err) {
    throw payloadError(err) ?? err
  }
}

/**
 * Decodes the first value of a payload list (absent or `undefined` → null); a value held by
 * reference and larger than SERVICE_PAYLOAD_INLINE_MAX_BYTES is not fetched but answered as a LargeValue.
 */
export async function decodeFirstValue (fastify: FastifyInstance, payloads: temporal.api.common.v1.IPayloads | null | undefined): Promise<unknown> {
  const reference = referenceOf(payloads?.payloads?.[0])
  if (reference !== null && reference.bytes > fastify.config.SERVICE_PAYLOAD_INLINE_MAX_BYTES) return new LargeValue(reference)
  try {
    return (await decodeFromPayloadsAtIndex(fastify.engine.client.options.loadedDataConverter, 0, payloads?.payloads)) ?? null
  } catch (err) {
    throw payloadError(err) ?? err
  }
}

/**
 * A value as a response field pair: inline, or null and the presigned download of a LargeValue.
 * The object is looked up first (one HEAD): a link to an object the bucket no longer holds would
 * answer 200 and leave the client with a URL that fails, where a value fetched inline is a 404
 * PayloadNotFoundError; both answer the same.
 */
export async function inlineOrLink (fastify: FastifyInstance, value: unknown): Promise<{ value: unknown, link?: PayloadLink }> {
  if (!(value instanceof LargeValue)) return { value }
  const { payloadRef, bytes, sha256 } = value.reference
  try {
    if (await payloadStore(fastify).stat(payloadRef) === null) throw new PayloadMissingError(payloadRef)
  } catch (err) {
    throw payloadError(err) ?? err
  }
  return { value: null, link: { payloadRef, bytes, sha256, ...await presigned(fastify, 'GET', payloadRef) } }
}
