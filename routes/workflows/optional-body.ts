/**
 * For routes whose whole body is optional (handlers, stop, terminate): a request without a body
 * is validated as `{}`, and the OpenAPI document marks the body as not required.
 */
import type { FastifyRequest } from 'fastify'
import { OPTIONAL_BODY } from '../../plugins/external/swagger.js'

export const optionalBody = {
  preValidation: async (request: FastifyRequest) => { if (request.body === undefined) request.body = {} }
}

export const optionalBodySchema = { [OPTIONAL_BODY]: true }
