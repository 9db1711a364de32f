/**
 * Authentication and access control (docs/access-control.md). On when SERVICE_API_AUTH_TOKEN or
 * SERVICE_API_KEYS_FILE is set (./access.ts: the service; ./key-store.ts holds the keys, re-read without restart).
 *
 * - onRequest: who is calling (an API key in `Authorization`, or a run token: ./run-tokens.ts)
 *   → 401; then the route's declared scope (`config: access(scope, target)`, plugins/app/access/route-access.ts) → 403.
 *   Stream routes (`queryToken`) also read `?runToken=` (or its older name `?access_token=`), where
 *   only run tokens are accepted (a key there would be kept in logs and browser history) unless
 *   SERVICE_API_QUERY_KEYS_ALLOWED. A key in the query is refused on every route, whatever the
 *   header holds: a generated client that sends it there as well as in the header must not work.
 * - preHandler: a key limited to catalogs or workflow-name patterns, checked against what the
 *   request touches (the body and the run are known only by then; ./principal.ts) → 403.
 * Open routes declare `config: { public: true }` or lie under /docs or /ui (isOpenPath); CORS preflights
 * pass (no credentials come with them). Credentials never reach the log (lib/log-redaction.ts): the
 * keys file's run-token secrets are handed to the log's redactor, which re-reads them after each reload.
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
    /** Who the request acts as; null when auth is off or the route is open. */
    principal: Principal | null
  }
}

/**
 * Paths open without a credential: Swagger UI and the run inspector's static files (plugins/external/ui.ts).
 * Neither holds data; the pages ask for a key and send it with each API call they make.
 */
const isOpenPath = (url: string) => url.startsWith('/docs') || /^\/ui(?:[/?]|$)/.test(url)

/** The credential in `Authorization` (`Bearer` or `Basic`, the raw value), or undefined. */
function headerCredential (authorization: string | undefined): string | undefined {
  return authorization?.match(/^(?:Basic|Bearer)\s+(\S+)\s*$/i)?.[1]
}

/**
 * `?runToken=`, or `?access_token=` (its name before issue 48: EventSource pages written for it keep
 * working; the document declares `runToken` only). Fastify's query parser has decoded names and
 * values; a repeated parameter (an array) is ignored, and so refused for want of a credential.
 */
function queryCredentials (request: FastifyRequest): string[] {
  const query = request.query as Record<string, unknown> | undefined
  return [query?.runToken, query?.access_token].filter((value): value is string => typeof value === 'string' && value !== '')
}

/**
 * Records each route's declaration, and adds the statuses every protected route can answer and
 * its scope to the OpenAPI document.
 */
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
    // A stream's `?runToken=` is a declared query parameter (schemas/history.ts), not a security scheme: generators
    // fill an `apiKey`-in-query scheme with the client's API key, which the query refuses.
    schema.security = [{ bearerAuth: roles }, { basicToken: roles }]
    schema['x-flowport-scope'] = scope ?? 'every scope'
  })
}

export const RUN_TOKEN_SECRETS_MISSING = 'No run-token secret configured (SERVICE_RUN_TOKEN_SECRETS, or runTokenSecrets in the keys file): ' +
  'this replica signs run tokens with a secret of its own, so tokens issued by other replicas (or before a restart) are refused (401). ' +
  'Give every replica the same SERVICE_RUN_TOKEN_SECRETS (docs/production.md)'

/** `redactor`: the log's (app.ts), told about the keys file's secrets. */
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
    // A route that declares no scope needs them all (fail closed; test/access-routes.test.ts catches it).
    for (const scope of route.scope ? [route.scope] : SCOPES) assertScope(principal, scope)
    const params = request.params as { id?: string, rid?: string }
    if (principal.bound && route.target !== 'self') assertBound(principal, route.target === 'workflow' ? params.id : undefined, params.rid)
  })

  // Callback style: only a limited key waits (for the run it names), and an async hook would cost
  // every request a promise.
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
