import type { FastifyRequest } from 'fastify'

/** A body that may be left out is validated as `{}`; swagger.ts unmarks it as required in the document. */
export const OPTIONAL_BODY = 'x-optional-body'

export const optionalBody = {
  preValidation: async (request: FastifyRequest) => { if (request.body === undefined) request.body = {} }
}

export const optionalBodySchema = { [OPTIONAL_BODY]: true }
