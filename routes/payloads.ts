import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { access } from '../plugins/app/access/route-access.js'
import { errorsFor, response } from '../schemas/common.js'
import { PayloadUploadSchema } from '../schemas/payloads.js'

const payloads: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/payloads', {
    config: access('run', 'none'),
    schema: {
      tags: ['payloads'],
      operationId: 'createPayloadUpload',
      summary: 'Get a presigned URL to upload a large input, and the reference to start a run with',
      description: 'PUT the input\'s JSON text to `uploadUrl` before `expiresAt`, then send `payloadRef` as `inputRef` (instead of ' +
        '`input`) to POST /workflow/start or /workflow/run within SERVICE_PAYLOAD_UPLOAD_TTL_S. Nothing is stored until the upload. ' +
        'No body. 404 PayloadStorageNotConfiguredError: large payloads are off (no object store is configured). ' +
        '503 PayloadStorageUnavailableError (with Retry-After): the store does not answer within 2 s or refuses the API\'s credentials: it is asked before a URL is handed out.',
      response: { 200: response(PayloadUploadSchema, 'The reference and where to upload it'), ...errorsFor(401, 403, 404, 429, 500, 503) }
    }
  }, async () => await fastify.payloads.createUpload())
}

export default payloads
