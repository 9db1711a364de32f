/**
 * The OpenAPI 3.1 document, generated from the routes' TypeBox schemas, served at /openapi.json
 * with Swagger UI at /docs. Named schemas become components under their `$id`.
 * @see https://github.com/fastify/fastify-swagger
 */
import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { SCOPES, SCOPE_DESCRIPTIONS } from '../schemas/access.js'

export const openapiInfo = {
  title: 'Flowport API',
  version: '1.0.0',
  description: 'Run, start, observe and control Temporal workflows over HTTP. Errors share one JSON shape (ErrorResponse, ValidationError). ' +
    'JSON bodies, `input` and `payload` included, must not contain a `__proto__` key or a `constructor` key holding an object with a ' +
    '`prototype` (400 ValidationError: prototype-poisoning protection), nor a string with a lone UTF-16 surrogate (400: it has no UTF-8 form), ' +
    'nor nest arrays and objects more than SERVICE_JSON_MAX_DEPTH levels deep (default 64, the body itself being level 1; 400).'
}

/** Each operation lists the scope it needs as the role of its security requirement (OpenAPI 3.1) and in `x-flowport-scope`. */
const SCOPES_TEXT = 'Scopes: ' + SCOPES.map((s) => `\`${s}\` (${SCOPE_DESCRIPTIONS[s]})`).join(', ') +
  '. SERVICE_API_AUTH_TOKEN is a key holding every scope. Keys may also be limited to catalogs and workflow-name patterns.'

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
        { name: 'history', description: 'Execution history and its live stream' },
        { name: 'access', description: 'Run tokens for browsers' }
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: `An API key (SERVICE_API_AUTH_TOKEN, or a key of SERVICE_API_KEYS_FILE) or a run token: \`Authorization: Bearer <key>\`. ${SCOPES_TEXT}` },
          basicToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'An API key as `Basic <key>` (the raw key, not base64 user:password)' },
          runToken: { type: 'apiKey', in: 'query', name: 'access_token', description: 'A run token (POST /tokens) on the stream routes, for EventSource, which cannot send headers. API keys are refused here (401).' }
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
