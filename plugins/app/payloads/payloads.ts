/**
 * Large payloads by reference, the API's side (docs/large-payloads.md): presigned uploads of
 * inputs (POST /payloads, `inputRef`), and values the engine holds by reference answered inline up
 * to SERVICE_PAYLOAD_INLINE_MAX_BYTES, beyond it as a presigned download (`inputRef`/`outputRef`
 * of results and inputs). The claim-check codec itself (core/src/payloads/codec.ts) is loaded by
 * the engine client (plugins/app/engine/), wrapped so its storage failures come out as API errors.
 */
import { randomUUID } from 'node:crypto'
import type { temporal } from '@temporalio/proto'
import type { PayloadCodec } from '@temporalio/common'
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js'
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/data-converter-helpers.js'
import { ClaimCheckCodec, PayloadMissingError, PayloadStorageError, PayloadStore, payloadSettingsFrom, referenceOf, type PayloadReference } from '@flowport/core/payloads'
import type { Config } from '../../../schemas/config.js'
import type { PayloadLink, PayloadUpload } from '../../../schemas/payloads.js'
import { ApiError, RETRY_AFTER_SECONDS, validationError } from '../../../lib/api-error.js'
import { loneSurrogateAt, nestsDeeperThan } from '../../http/json-body/json-checks.js'

/** A value the engine holds by reference and that is too large to answer inline: answered as a PayloadLink. */
export class LargeValue {
  constructor (readonly reference: PayloadReference) {}
  toJSON (): PayloadReference { return this.reference }
}

const unavailable = (message: string): ApiError =>
  new ApiError(503, 'PayloadStorageUnavailableError', message, { headers: { 'retry-after': RETRY_AFTER_SECONDS } })

/**
 * The API error of a payload-store failure (also when the codec meets it inside an engine call);
 * undefined for any other error. `starting`: why the store is not there yet, said instead of the
 * storage call's own failure.
 */
function payloadError (err: unknown, starting: string | null = null): ApiError | undefined {
  if (err instanceof PayloadMissingError) {
    return new ApiError(404, 'PayloadNotFoundError', `Payload ${err.payloadRef} is not in the payload store (never stored, or removed by the bucket's lifecycle rule)`)
  }
  if (err instanceof PayloadStorageError) return unavailable(starting ?? err.message)
  return undefined
}

export type PayloadsConfig = Parameters<typeof payloadSettingsFrom>[0] & Pick<Config,
  'SERVICE_CLOUD_PUBLIC_ENDPOINT' | 'SERVICE_PAYLOAD_URL_TTL_S' | 'SERVICE_PAYLOAD_UPLOAD_TTL_S' | 'SERVICE_PAYLOAD_UPLOAD_MAX_BYTES' | 'SERVICE_PAYLOAD_INLINE_MAX_BYTES' | 'SERVICE_JSON_MAX_DEPTH'>

export type Payloads = ReturnType<typeof createPayloads>

/** Presigned URLs are signed as of the start of the minute, so answers within one minute are equal (and so are their ETags). */
const SIGNING_STEP_MS = 60_000
/** The longest a presigned URL may live (S3's limit: seven days). */
const MAX_PRESIGN_S = 7 * 24 * 3600
/**
 * After the store failed or did not answer, payload calls answer 503 at once for this long: a store
 * that hangs would otherwise hold every request for the check's deadline (2 s), one after another.
 */
const FAILURE_REMEMBERED_MS = 5000

export interface PayloadsOptions {
  config: PayloadsConfig
  /**
   * Why the configured store is not there yet (null once it is): `npm start` gives the API the
   * settings of its object store before the store has started (cli/dev-stack.ts). Meanwhile
   * every payload call answers 503 PayloadStorageUnavailableError with this message, at once.
   */
  storeStarting?: () => string | null
}

export function createPayloads ({ config, storeStarting = () => null }: PayloadsOptions) {
  let lastFailure: { message: string, at: number } | null = null
  const asApiError = (err: unknown): never => {
    const starting = storeStarting()
    // A store still starting is answered as such, and attached the moment it runs.
    if (err instanceof PayloadStorageError && starting === null) lastFailure = { message: err.message, at: Date.now() }
    throw payloadError(err, starting) ?? err
  }
  const settings = payloadSettingsFrom(config)
  const store = settings === null ? null : new PayloadStore(settings, config.SERVICE_CLOUD_PUBLIC_ENDPOINT)
  const claimCheck = store === null ? null : new ClaimCheckCodec(store)
  // The codec runs inside engine calls (starts, queries, updates, results): its storage failures are API errors there.
  const codec: PayloadCodec | null = claimCheck === null
    ? null
    : {
        encode: async (payloads) => await claimCheck.encode(payloads).catch(asApiError),
        decode: async (payloads) => await claimCheck.decode(payloads).catch(asApiError)
      }
  const dataConverter = codec === null ? undefined : { payloadCodecs: [codec] }
  // The engine client loads the same settings the same way (its options' loadedDataConverter).
  const loaded = loadDataConverter(dataConverter)

  /**
   * The payload store, or 404 PayloadStorageNotConfiguredError when the feature is off, or 503
   * PayloadStorageUnavailableError while it starts (a presigned URL would only point at nothing).
   */
  function storeOrRefuse (): PayloadStore {
    if (store === null) {
      throw new ApiError(404, 'PayloadStorageNotConfiguredError',
        'Large payloads are off on this API: no object store is configured (SERVICE_TRACE_S3_BUCKET, SERVICE_PAYLOAD_REFS_ENABLED)')
    }
    const starting = storeStarting()
    if (starting !== null) throw unavailable(starting)
    const since = lastFailure === null ? Infinity : Date.now() - lastFailure.at
    if (since < FAILURE_REMEMBERED_MS) {
      throw unavailable(`${lastFailure!.message} (${(since / 1000).toFixed(1)} s ago; the store is asked again ${FAILURE_REMEMBERED_MS / 1000} s after a failure)`)
    }
    return store
  }

  async function presigned (method: 'GET' | 'PUT', payloadRef: string): Promise<{ url: string, expiresAt: string }> {
    const signedAt = new Date(Math.floor(Date.now() / SIGNING_STEP_MS) * SIGNING_STEP_MS)
    // At least the setting's lifetime is left when the answer leaves.
    const expiresIn = Math.min(config.SERVICE_PAYLOAD_URL_TTL_S + SIGNING_STEP_MS / 1000, MAX_PRESIGN_S)
    const url = await storeOrRefuse().presign(method, payloadRef, expiresIn, signedAt)
    return { url, expiresAt: new Date(signedAt.getTime() + expiresIn * 1000).toISOString() }
  }

  return {
    /** The payload store; null when no object store is configured (the feature is off). */
    store,
    /** What the engine client encodes and decodes payloads with: the claim-check codec when the store is on. */
    dataConverter,
    /** POST /payloads: a fresh upload reference and the presigned URL to PUT the input to. */
    async createUpload (signal?: AbortSignal): Promise<PayloadUpload> {
      // A URL to a store that does not answer (or refuses these credentials) would only fail the client's PUT.
      await storeOrRefuse().check(signal).catch(asApiError)
      const payloadRef = `uploads/${randomUUID()}`
      const { url, expiresAt } = await presigned('PUT', payloadRef)
      return { payloadRef, uploadUrl: url, method: 'PUT', expiresAt }
    },
    /**
     * The input a client uploaded under `inputRef`: 404 PayloadNotFoundError when there is none or it
     * is older than SERVICE_PAYLOAD_UPLOAD_TTL_S, 413 when larger than SERVICE_PAYLOAD_UPLOAD_MAX_BYTES,
     * 400 when it is not JSON.
     */
    async uploadedInput (inputRef: string, signal?: AbortSignal): Promise<unknown> {
      const uploads = storeOrRefuse()
      const { SERVICE_PAYLOAD_UPLOAD_TTL_S: ttl, SERVICE_PAYLOAD_UPLOAD_MAX_BYTES: max } = config
      const stored = await uploads.stat(inputRef, signal).catch(asApiError)
      if (stored === null) throw payloadError(new PayloadMissingError(inputRef))
      if (stored.lastModified !== null && Date.now() - stored.lastModified.getTime() > ttl * 1000) {
        throw new ApiError(404, 'PayloadNotFoundError', `Payload ${inputRef} has expired: it was uploaded more than ${ttl} s ago (SERVICE_PAYLOAD_UPLOAD_TTL_S); upload it again`)
      }
      if (stored.bytes > max) {
        throw new ApiError(413, 'PayloadTooLargeError', `Payload ${inputRef} has ${stored.bytes} bytes, more than SERVICE_PAYLOAD_UPLOAD_MAX_BYTES (${max})`)
      }
      const text = Buffer.from(await uploads.get(inputRef, signal).catch(asApiError)).toString('utf8')
      // The checks a request body gets (plugins/http/json-body/index.ts): what follows the parser recurses per level.
      const maxDepth = config.SERVICE_JSON_MAX_DEPTH
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
    },
    /**
     * Decodes the first value of a payload list (absent or `undefined` → null); a value held by
     * reference and larger than SERVICE_PAYLOAD_INLINE_MAX_BYTES is not fetched but answered as a LargeValue.
     */
    async decodeFirstValue (payloads: temporal.api.common.v1.IPayloads | null | undefined): Promise<unknown> {
      const reference = referenceOf(payloads?.payloads?.[0])
      if (reference !== null && reference.bytes > config.SERVICE_PAYLOAD_INLINE_MAX_BYTES) return new LargeValue(reference)
      return (await decodeFromPayloadsAtIndex(loaded, 0, payloads?.payloads).catch(asApiError)) ?? null
    },
    /**
     * A value as a response field pair: inline, or null and the presigned download of a LargeValue.
     * The object is looked up first (one HEAD): a link to an object the bucket no longer holds would
     * answer 200 and leave the client with a URL that fails, where a value fetched inline is a 404
     * PayloadNotFoundError; both answer the same.
     */
    async inlineOrLink (value: unknown): Promise<{ value: unknown, link?: PayloadLink }> {
      if (!(value instanceof LargeValue)) return { value }
      const { payloadRef, bytes, sha256 } = value.reference
      const stored = await storeOrRefuse().stat(payloadRef).catch(asApiError)
      if (stored === null) throw payloadError(new PayloadMissingError(payloadRef))
      return { value: null, link: { payloadRef, bytes, sha256, ...await presigned('GET', payloadRef) } }
    },
    close (): void { store?.close() }
  }
}
