/**
 * One error shape for every failure (DESIGN.md §4, §4.6): ApiError bodies, schema validation
 * issues, malformed JSON, oversized bodies, unknown routes. 500s carry no internals and are
 * logged with the request id.
 */
import fp from 'fastify-plugin'
import type { FastifyError } from 'fastify'
import { ApiError, validationError } from '../lib/api-error.js'
import { fromEngineError } from '../lib/engine-errors.js'
import { issueFromAjv } from '../lib/json-schema.js'

/** Fastify's own client-error codes and the API error each becomes. */
const clientErrors: Record<string, (err: FastifyError) => ApiError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: (err) => validationError([{ path: '/', in: 'body', message: `Malformed JSON: ${err.message}` }]),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => validationError([{ path: '/', in: 'body', message: 'Body is empty but Content-Type is application/json' }]),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new ApiError(413, 'PayloadTooLargeError', 'Request body is larger than the limit'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (err) => new ApiError(415, 'UnsupportedMediaTypeError', err.message),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => validationError([{ path: '/', in: 'headers', message: 'Content-Length does not match the body' }])
}

export function toApiError (err: FastifyError): ApiError | undefined {
  if (err instanceof ApiError) return err
  if (err.validation) return validationError(err.validation.map((v) => issueFromAjv(v, err.validationContext ?? 'body')))
  const mapped = err.code ? clientErrors[err.code] : undefined
  if (mapped) return mapped(err)
  const engine = fromEngineError(err)
  if (engine) return engine
  // Remaining 4xx from Fastify or plugins (bad URL encoding, 406 from SSE-only routes …).
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    if (err.statusCode === 406) return new ApiError(406, 'NotAcceptableError', err.message)
    return validationError([{ path: '/', in: 'headers', message: err.message }])
  }
  return undefined
}

export default fp(async (fastify) => {
  fastify.setErrorHandler(function (err: FastifyError, request, reply) {
    const apiError = toApiError(err)
    if (!apiError) {
      request.log.error({ err }, 'internal error')
      return reply.code(500).send({ error: 'InternalServerError', message: `Internal server error (request ${request.id})` })
    }
    if (apiError.statusCode >= 500) request.log.warn({ err }, apiError.message)
    for (const [name, value] of Object.entries(apiError.extras.headers ?? {})) reply.header(name, value)
    if (apiError.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="flowport"')
    return reply.code(apiError.statusCode).send(apiError.toBody())
  })

  fastify.setNotFoundHandler(function (request, reply) {
    return reply.code(404).send({ error: 'RouteNotFoundError', message: `Route ${request.method} ${request.url.split('?')[0]} not found` })
  })
}, { name: 'errors' })
