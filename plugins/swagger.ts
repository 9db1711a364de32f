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
  description: 'Run, start, observe and control Temporal workflows over HTTP. Errors share one JSON shape (ErrorResponse, ValidationError).'
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
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`)
    }
  })
  await fastify.register(swaggerUi, { routePrefix: '/docs' })

  fastify.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => fastify.swagger())
}, { name: 'swagger', dependencies: ['schemas'] })
