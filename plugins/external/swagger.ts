import fp from 'fastify-plugin'
import { OPTIONAL_BODY } from '../../lib/http/optional-body.js'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { SCOPES, SCOPE_DESCRIPTIONS } from '../../schemas/access.js'
import { declareErrorHeaders, plainEnums, pruneUnusedComponents } from '../../lib/openapi-for-generators.js'

export const openapiInfo = {
  title: 'Flowport API',
  version: '1.0.0',
  license: { name: 'MIT', identifier: 'MIT' },
  description: 'Run, start, observe and control Temporal workflows over HTTP. Errors share one JSON shape (ErrorResponse, ValidationError). ' +
    'JSON bodies, `input` and `payload` included, must not contain a `__proto__` key or a `constructor` key holding an object with a ' +
    '`prototype` (400 ValidationError: prototype-poisoning protection), nor a string with a lone UTF-16 surrogate (400: it has no UTF-8 form), ' +
    'nor nest arrays and objects more than SERVICE_JSON_MAX_DEPTH levels deep (default 64, the body itself being level 1; 400).'
}

const webhookHeader = (name: string, description: string, example: string) =>
  ({ name, in: 'header' as const, required: true, description, schema: { type: 'string' as const }, example })

/**
 * The webhook request, as a callback: a top-level `webhooks` entry becomes, in some generators, a
 * client method POSTing to a path the API does not have.
 */
const completionCallback = {
  '{$request.body#/webhook/url}': {
    post: {
      summary: 'A run closed: its WorkflowResult, signed per Standard Webhooks',
      description: 'Sent once per run started with `webhook`, when the run (or the last run it continued as) closes, whatever its final ' +
        'status. Verify the signature with any Standard Webhooks library and the secret; deduplicate by `webhook-id` (a retry after a ' +
        'lost answer sends the same id). Any 2xx ends the delivery; anything else, or no answer within 10 s, is retried after 1 s, 2 s, ' +
        '4 s … (at most 10 min apart) for SERVICE_WEBHOOK_RETRY_FOR_MS. Redirects are not followed.',
      security: [],
      parameters: [
        webhookHeader('webhook-id', 'The delivery\'s id, the same on every attempt', 'msg_TwZJIaPW3m_5Z_BjZueYAGz61hGy89ERz7-TbyyZ11o'),
        webhookHeader('webhook-timestamp', 'When this attempt was signed, in seconds since the epoch', '1795000000'),
        webhookHeader('webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`', 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=')
      ],
      requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/WorkflowResult' } } } },
      responses: { '2XX': { description: 'Delivered: no further attempt' }, default: { description: 'Not delivered: retried with backoff' } }
    }
  }
}
const CALLBACK_OPERATIONS = ['startWorkflow', 'runWorkflow']

/** Written in place: openapi-python-client 0.29 refuses a callback given as a `$ref`. */
function declareCallbacks (doc: { paths?: Record<string, Record<string, any>>, components?: Record<string, any> }) {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      if (!CALLBACK_OPERATIONS.includes(op?.operationId)) continue
      // An operationId of its own in each copy: generators rename (and warn about) one without, and refuse one twice.
      const { post } = completionCallback['{$request.body#/webhook/url}']
      op.callbacks = { workflowCompleted: { '{$request.body#/webhook/url}': { post: { operationId: `${String(op.operationId)}Completed`, ...structuredClone(post) } } } }
    }
  }
}

/** Each operation lists the scope it needs as the role of its security requirement (OpenAPI 3.1) and in `x-flowport-scope`. */
const SCOPES_TEXT = 'Scopes: ' + SCOPES.map((s) => `\`${s}\` (${SCOPE_DESCRIPTIONS[s]})`).join(', ') +
  '. SERVICE_API_AUTH_TOKEN is a key holding every scope. Keys may also be limited to catalogs and workflow-name patterns.'

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
      // Relative: it follows the host, and stays the same in the committed openapi/openapi.json.
      servers: [{ url: '/', description: 'The host that serves this document' }],
      tags: [
        { name: 'health', description: 'Liveness and readiness' },
        { name: 'catalog', description: 'Registered workflows and their schemas' },
        { name: 'workflows', description: 'Start, run, observe and control workflow executions' },
        { name: 'history', description: 'Execution history and its live stream' },
        { name: 'schedules', description: 'Recurring runs, kept by the engine' },
        { name: 'batch', description: 'One action on every run a filter matches (Temporal batch operations)' },
        { name: 'evals', description: 'Eval runs: a workflow\'s datasets run and judged by its evaluators (docs/evals.md)' },
        { name: 'deployments', description: 'Worker deployments: which code version new runs go to, ramps and rollbacks (docs/deploys.md)' },
        { name: 'payloads', description: 'Large inputs uploaded by reference (docs/large-payloads.md)' },
        { name: 'access', description: 'Run tokens for browsers; what a credential may do' }
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: `An API key (SERVICE_API_AUTH_TOKEN, or a key of SERVICE_API_KEYS_FILE) or a run token: \`Authorization: Bearer <key>\`. ${SCOPES_TEXT}` },
          basicToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'An API key as `Basic <key>` (the raw key, not base64 user:password)' }
        }
      },
      security: [{ bearerAuth: [] }, { basicToken: [] }]
    },
    hideUntagged: true,
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject
      markOptionalBodies(documentObject.openapiObject as Parameters<typeof markOptionalBodies>[0])
      const doc = documentObject.openapiObject
      declareCallbacks(doc as Parameters<typeof declareCallbacks>[0])
      plainEnums(doc)
      declareErrorHeaders(doc)
      pruneUnusedComponents(doc)
      return doc
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`)
    }
  })
  await fastify.register(swaggerUi, { routePrefix: '/docs' })

  fastify.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => fastify.swagger())
}, { name: 'swagger', dependencies: ['schemas'] })
