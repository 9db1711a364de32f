/** One error shape for every failure; concepts throw ApiError, this knows only Fastify's and Node's errors. */
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ApiError, validationError, type ErrorBody } from '../../lib/api-error.js'
import { issueFromAjv } from '../../lib/json-schema.js'
import { ERROR_DESCRIPTIONS, ErrorResponseSchema, response, type ErrorResponse } from '../../schemas/common.js'

const clientErrors: Record<string, (err: FastifyError) => ApiError> = {
  FST_ERR_CTP_INVALID_JSON_BODY: (err) => validationError([{ path: '/', in: 'body', message: `Malformed JSON: ${err.message}` }]),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => validationError([{ path: '/', in: 'body', message: 'Body is empty but Content-Type is application/json' }]),
  FST_ERR_CTP_BODY_TOO_LARGE: () => new ApiError(413, 'PayloadTooLargeError', 'Request body is larger than the limit'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (err) => new ApiError(415, 'UnsupportedMediaTypeError', err.message),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => validationError([{ path: '/', in: 'headers', message: 'Content-Length does not match the body' }]),
  FST_ERR_BAD_URL: () => validationError([{ path: '/', in: 'params', message: 'The path is not valid percent-encoded UTF-8' }]),
  // Unreachable while maxParamLength >= MAX_HEADER_BYTES (app.ts); mapped so it can never answer in another shape.
  FST_ERR_MAX_PARAM_LENGTH: () => validationError([{ path: '/', in: 'params', message: 'A path parameter is too long' }])
}

export function toApiError (err: FastifyError): ApiError | undefined {
  if (err instanceof ApiError) return err
  if (err.validation) return validationError(err.validation.map((v) => issueFromAjv(v, err.validationContext ?? 'body')))
  const mapped = err.code ? clientErrors[err.code] : undefined
  if (mapped) return mapped(err)
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    if (err.statusCode === 406) return new ApiError(406, 'NotAcceptableError', err.message)
    return validationError([{ path: '/', in: 'headers', message: err.message }])
  }
  return undefined
}

function sendError (request: FastifyRequest, reply: FastifyReply, err: FastifyError) {
  const apiError = toApiError(err)
  if (!apiError) {
    request.log.error({ err }, 'internal error')
    const body: ErrorResponse = { error: 'InternalServerError', message: `Internal server error (request ${request.id})` }
    return reply.code(500).send(body)
  }
  if (apiError.statusCode >= 500) request.log.warn({ err }, apiError.message)
  for (const [name, value] of Object.entries(apiError.extras.headers ?? {})) reply.header(name, value)
  if (apiError.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="flowport"')
  return reply.code(apiError.statusCode).send(apiError.toBody())
}

/** Router failures, answered before any route or hook runs: without it Fastify writes its own body shape. */
export function frameworkErrors (this: FastifyInstance, err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id)
  void sendError(request, reply, err)
}

/** What Node's parser refuses never becomes a request: the answer is written to the socket, in our shape. */
export function clientErrorHandler (this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, body]: [number, ErrorBody] = err.code === 'HPE_HEADER_OVERFLOW'
    ? [431, { error: 'RequestHeaderFieldsTooLargeError', message: 'The request line and headers are larger than the limit' }]
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, { error: 'RequestTimeoutError', message: 'The request was not received in time' }]
      : [400, validationError([{ path: '/', in: 'headers', message: 'Malformed HTTP request' }]).toBody()]
  // Not the whole error: its rawPacket holds the request's bytes, credentials included.
  this.log.trace({ code: err.code, message: err.message }, 'client error')
  // An early answer to a request whose body then stalled cannot be followed by another one.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (socket.writable && !inFlight?.headersSent) {
    const json = JSON.stringify(body)
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(json)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${json}`)
  }
  socket.destroy(err)
}

/** The methods each path answers, for 405 instead of 404; catch-alls (`OPTIONS *`) are left out, or every path would seem to exist. */
class RouteIndex {
  readonly #routes: Array<{ segments: string[], methods: Set<string> }> = []

  add (url: string, methods: string[]): void {
    if (url === '*' || url === '/*') return
    const segments = url.split('/')
    const known = this.#routes.find((r) => r.segments.join('/') === url)
    if (known) methods.forEach((m) => known.methods.add(m))
    else this.#routes.push({ segments, methods: new Set(methods) })
  }

  allowed (path: string): string[] {
    const parts = path.split('/')
    const methods = new Set<string>()
    for (const { segments, methods: routeMethods } of this.#routes) {
      if (matches(segments, parts)) routeMethods.forEach((m) => methods.add(m))
    }
    return [...methods].sort()
  }
}

function matches (template: string[], parts: string[]): boolean {
  for (let i = 0; i < template.length; i++) {
    const segment = template[i]
    if (segment === '*') return true
    if (i >= parts.length) return false
    if (segment.startsWith(':') ? parts[i] === '' : segment !== parts[i]) return false
  }
  return template.length === parts.length
}

const REQUEST_TIMEOUT = 'RequestTimeoutError: the request line and headers, or the whole request, were not received within ' +
  'SERVICE_HEADERS_TIMEOUT_MS / SERVICE_REQUEST_TIMEOUT_MS; the connection is closed'

export default fp(async (fastify) => {
  const routes = new RouteIndex()

  fastify.addHook('onRoute', (route) => {
    routes.add(route.url, [route.method].flat())
    // Node answers 431 (header section above maxHeaderSize) and 408 (SERVICE_HEADERS_TIMEOUT_MS /
    // SERVICE_REQUEST_TIMEOUT_MS) before any route runs: every operation declares both.
    const responses = route.schema?.response as Record<string, unknown> | undefined
    if (responses && !route.schema?.hide && responses['431'] === undefined) responses['431'] = response(ErrorResponseSchema, ERROR_DESCRIPTIONS[431])
    if (responses && !route.schema?.hide && responses['408'] === undefined) responses['408'] = response(ErrorResponseSchema, REQUEST_TIMEOUT)
  })

  // HTTP/1.1 requires Host (RFC 9112 §3.2); Node's own refusal (app.ts turns it off) is an empty 400.
  // Callback-style hooks here and below: they never wait, and an async hook costs every request a promise.
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      done(validationError([{ path: '/host', in: 'headers', message: 'is required in an HTTP/1.1 request' }]))
      return
    }
    done()
  })

  // Before the body is parsed: a 405 whatever body or content type came with it.
  fastify.addHook('preParsing', (request, reply, payload, done) => {
    const path = request.is404 ? request.url.split('?')[0] : undefined
    const allow = path === undefined ? [] : routes.allowed(path)
    if (allow.length === 0) {
      done(null, payload)
      return
    }
    reply.header('allow', allow.join(', '))
    done(new ApiError(405, 'MethodNotAllowedError', `Method ${request.method} is not allowed on ${path} (allowed: ${allow.join(', ')})`))
  })

  fastify.setErrorHandler(function (err: FastifyError, request, reply) {
    return sendError(request, reply, err)
  })

  fastify.setNotFoundHandler(function (request, reply) {
    const body: ErrorResponse = { error: 'RouteNotFoundError', message: `Route ${request.method} ${request.url.split('?')[0]} not found` }
    return reply.code(404).send(body)
  })
}, { name: 'errors' })
