/**
 * Large payloads by reference (docs/large-payloads.md): the presigned upload of an input
 * (POST /payloads, then `inputRef` in a start), and the presigned download a result or input
 * larger than SERVICE_PAYLOAD_INLINE_MAX_BYTES is answered with.
 */
import { Type, type Static } from '@sinclair/typebox'

/** What POST /payloads issues: `uploads/` and a random UUID (lower-case hex, as randomUUID writes it). */
export const UPLOAD_REF_PATTERN = '^uploads/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'

export const InputRefSchema = Type.String({
  pattern: UPLOAD_REF_PATTERN,
  description: 'Start with the input uploaded through POST /payloads instead of `input` (send one of the two): a JSON document, ' +
    'validated against the catalog\'s inputSchema like `input`. 404 PayloadNotFoundError when nothing was uploaded under it or the upload ' +
    'is older than SERVICE_PAYLOAD_UPLOAD_TTL_S; 413 when it is larger than SERVICE_PAYLOAD_UPLOAD_MAX_BYTES.',
  examples: ['uploads/3f6c1a52-0d7e-4c1b-9a43-2b8f5e6d7c10']
})

export const PayloadUploadSchema = Type.Object({
  payloadRef: Type.String({ pattern: UPLOAD_REF_PATTERN, description: 'Send it as `inputRef` of POST /workflow/start or /workflow/run once the upload is done' }),
  uploadUrl: Type.String({ format: 'uri', description: 'PUT the input\'s JSON text here (any `Content-Type`), before `expiresAt`' }),
  method: Type.Literal('PUT'),
  expiresAt: Type.String({ format: 'date-time', description: 'When `uploadUrl` stops working (SERVICE_PAYLOAD_URL_TTL_S)' })
}, {
  $id: 'PayloadUpload',
  additionalProperties: false,
  description: 'Where to upload an input too large for a request body',
  examples: [{
    payloadRef: 'uploads/3f6c1a52-0d7e-4c1b-9a43-2b8f5e6d7c10',
    uploadUrl: 'https://bucket.s3.amazonaws.com/payloads/uploads/3f6c1a52-0d7e-4c1b-9a43-2b8f5e6d7c10?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=9f2c4e1ab07d53c8e6f41a2d9b0c7e35f8a16d4b2c9e07f3a5d81b6c4e2f9a07',
    method: 'PUT',
    expiresAt: '2026-11-24T22:10:00.000Z'
  }]
})

export const PayloadLinkSchema = Type.Object({
  payloadRef: Type.String({ description: 'The reference the engine\'s history holds for this value (`sha256/<hex>`)' }),
  bytes: Type.Integer({ minimum: 0, description: 'Size of the JSON text behind `url`' }),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the JSON text behind `url`, in hex' }),
  url: Type.String({ format: 'uri', description: 'GET it for the value\'s JSON text, before `expiresAt`' }),
  expiresAt: Type.String({ format: 'date-time', description: 'When `url` stops working (about SERVICE_PAYLOAD_URL_TTL_S after the answer)' })
}, {
  $id: 'PayloadLink',
  additionalProperties: false,
  description: 'A value larger than SERVICE_PAYLOAD_INLINE_MAX_BYTES, given as a short-lived presigned download URL instead of inline'
})

export type PayloadUpload = Static<typeof PayloadUploadSchema>
export type PayloadLink = Static<typeof PayloadLinkSchema>
