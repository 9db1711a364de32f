/**
 * For routes whose whole body is optional (handlers, stop, terminate): a request without a body
 * is validated as `{}`, and the OpenAPI document marks the body as not required.
 */
import type { FastifyRequest } from 'fastify'

/** Marker in a route schema: the body may be left out entirely (Fastify's swagger marks every body required; plugins/external/swagger.ts unmarks these). */
export const OPTIONAL_BODY = 'x-optional-body'

export const optionalBody = {
  preValidation: async (request: FastifyRequest) => { if (request.body === undefined) request.body = {} }
}

export const optionalBodySchema = { [OPTIONAL_BODY]: true }
