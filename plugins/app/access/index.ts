/**
 * Authentication and access control, on with SERVICE_API_AUTH_TOKEN or SERVICE_API_KEYS_FILE. onRequest: who calls (401),
 * then the route's scope (403); preHandler: a limited key against what the request touches, known only then (403).
 * Which credential counts where, and why a key never does in a URL: docs/access-control.md.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Redactor } from '../../../lib/log-redaction.js'
import type { Target } from './route-access.js'
import { SCOPES, type Scope } from '../../../schemas/access.js'
import { runTokenSecrets } from '../../../lib/run-token-secrets.js'
import { errors } from '../../../schemas/common.js'
import type { StartWorkflowBody } from '../../../schemas/workflow.js'
import { assertBound, assertScope, isLimited, type Principal } from './principal.js'
import { createAccess, unauthorized, type Access, type RouteAccess } from './access.js'

declare module 'fastify' {
  interface FastifyInstance {
    access: Access
  }
  interface FastifyRequest {
    principal: Principal | null
  }
}

/** Swagger UI and the inspector's static files hold no data; their pages send a key with each call. */
const isOpenPath = (url: string) => url.startsWith('/docs') || /^\/ui(?:[/?]|$)/.test(url)

/** `Bearer` or `Basic`, the raw value. */
function headerCredential (authorization: string | undefined): string | undefined {
  return authorization?.match(/^(?:Basic|Bearer)\s+(\S+)\s*$/i)?.[1]
}

/**
 * `?access_token=` is the name before issue 48, kept for EventSource pages written for it (the
 * document declares `runToken` only). A repeated parameter (an array) is ignored, so refused.
 */
function queryCredentials (request: FastifyRequest): string[] {
  const query = request.query as Record<string, unknown> | undefined
  return [query?.runToken, query?.access_token].filter((value): value is string => typeof value === 'string' && value !== '')
}

/** Also adds the statuses every protected route can answer, and its scope, to the OpenAPI document. */
function declareAccess (fastify: FastifyInstance, table: RouteAccess[]): void {
  fastify.addHook('onRoute', (route) => {
    const config = route.config as { public?: boolean, scope?: Scope, target?: Target, queryToken?: boolean } | undefined
    for (const method of [route.method].flat()) {
      table.push({ method, url: route.url, public: config?.public === true || isOpenPath(route.url), scope: config?.scope, target: config?.target })
    }
    if (config?.public || !route.schema || route.schema.hide) return
    const schema = route.schema as Record<string, any>
    const scope = config?.scope
    schema.response = { ...schema.response, 401: schema.response?.[401] ?? errors[401], 403: errors[403], 429: errors[429] }
    // OpenAPI 3.1 lets non-OAuth schemes list required roles: the scope.
    const roles = scope ? [scope] : [...SCOPES]
    // `?runToken=` is a declared query parameter, not a security scheme: generators fill an
    // `apiKey`-in-query scheme with the client's API key, which the query refuses.
    schema.security = [{ bearerAuth: roles }, { basicToken: roles }]
    schema['x-flowport-scope'] = scope ?? 'every scope'
  })
}

export const RUN_TOKEN_SECRETS_MISSING = 'No run-token secret configured (SERVICE_RUN_TOKEN_SECRETS, or runTokenSecrets in the keys file): ' +
  'this replica signs run tokens with a secret of its own, so tokens issued by other replicas (or before a restart) are refused (401). ' +
  'Give every replica the same SERVICE_RUN_TOKEN_SECRETS (docs/production.md)'

export default fp<{ redactor: Redactor }>(async (fastify, { redactor }) => {
  const { config, runs, runStarter, catalogs, schedules } = fastify
  const access = createAccess({
    config,
    runTokenSecrets: runTokenSecrets(config),
    log: fastify.log,
    redactor,
    targets: { runs, runStarter, catalogs, schedules }
  })
  const { keys, runTokens } = access
  fastify.decorate('access', access)
  declareAccess(fastify, access.routes)
  fastify.decorateRequest('principal', null)
  if (!keys.enabled) return
  // A warning, not a note: behind a load balancer, browsers' streams fail with 401 at random.
  if (runTokens.ephemeral) fastify.log.warn(RUN_TOKEN_SECRETS_MISSING)
  keys.watch()
  fastify.addHook('onClose', async () => { keys.stop() })

  fastify.addHook('onRequest', async (request) => {
    const route = request.routeOptions.config
    if (route.public || isOpenPath(request.url)) return
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) return
    const inQuery = queryCredentials(request)
    for (const given of inQuery) access.refuseKeyInQuery(given, route.queryToken === true)
    const fromHeader = headerCredential(request.headers.authorization)
    const fromQuery = fromHeader === undefined && route.queryToken ? inQuery[0] : undefined
    const given = fromHeader ?? fromQuery
    if (given === undefined) throw unauthorized('Missing credentials: send Authorization: Bearer <token>')
    const principal = await access.authenticate(given, fromQuery !== undefined)
    request.principal = principal
    // An unknown route answers 404 to any valid credential.
    if (request.is404) return
    for (const scope of route.scope ? [route.scope] : SCOPES) assertScope(principal, scope)
    const params = request.params as { id?: string, rid?: string }
    if (principal.bound && route.target !== 'self') assertBound(principal, route.target === 'workflow' ? params.id : undefined, params.rid)
  })

  // Callback style: only a limited key waits (for its run); an async hook costs every request a promise.
  fastify.addHook('preHandler', (request, _reply, done) => {
    const principal = request.principal
    try {
      // Update-with-start also sends an update, possibly to a run someone else started.
      if (principal && request.routeOptions.config.target === 'start' && (request.body as StartWorkflowBody | undefined)?.update !== undefined) assertScope(principal, 'interact')
    } catch (err) {
      done(err as Error)
      return
    }
    if (!principal || !isLimited(principal)) {
      done()
      return
    }
    access.assertTarget({ target: request.routeOptions.config.target ?? 'none', params: request.params, query: request.query, body: request.body }, principal).then(() => { done() }, done)
  })
}, { name: 'access', dependencies: ['config', 'errors', 'runs', 'run-starter', 'catalogs', 'schedules'] })
