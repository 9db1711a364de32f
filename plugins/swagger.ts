/**
 * The OpenAPI 3.1 document, generated from the routes' TypeBox schemas, served at /openapi.json
 * with Swagger UI at /docs. Named schemas become components under their `$id`.
 * @see https://github.com/fastify/fastify-swagger
 */
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'

export const openapiInfo = {
  title: 'Flowport API',
  version: '1.0.0',
  description: 'Run, start, observe and control Temporal workflows over HTTP. Errors share one JSON shape (ErrorResponse, ValidationError). ' +
    'JSON bodies, `input` and `payload` included, must not contain a `__proto__` key or a `constructor` key holding an object with a ' +
    '`prototype` (400 ValidationError: prototype-poisoning protection), nor a string with a lone UTF-16 surrogate (400: it has no UTF-8 form), ' +
    'nor nest arrays and objects more than SERVICE_JSON_MAX_DEPTH levels deep (default 64, the body itself being level 1; 400).'
}

/** Marker in a route schema: the body may be left out entirely (Fastify's swagger marks every body required). */
export const OPTIONAL_BODY = 'x-optional-body'

function markOptionalBodies (doc: { paths?: Record<string, Record<string, any>> }) {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      if (!op?.[OPTIONAL_BODY]) continue
      delete op[OPTIONAL_BODY]
      if (op.requestBody) op.requestBody.required = false
    }
  }
}

export default fp(async (fastify) => {
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: openapiInfo,
      tags: [
        { name: 'health', description: 'Liveness and readiness' },
        { name: 'catalog', description: 'Registered workflows and their schemas' },
        { name: 'workflows', description: 'Start, run, observe and control workflow executions' },
        { name: 'history', description: 'Execution history and its live stream' }
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'The shared token: `Authorization: Bearer <token>`' },
          basicToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The shared token as `Basic <token>` (the raw token, not base64 user:password)' }
        }
      },
      security: [{ bearerAuth: [] }, { basicToken: [] }]
    },
    hideUntagged: true,
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject
      markOptionalBodies(documentObject.openapiObject as Parameters<typeof markOptionalBodies>[0])
      return documentObject.openapiObject
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`)
    }
  })
  await fastify.register(swaggerUi, { routePrefix: '/docs' })

  fastify.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => fastify.swagger())
}, { name: 'swagger', dependencies: ['schemas'] })
