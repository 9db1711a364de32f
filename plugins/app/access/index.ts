/**
 * Authentication and access control (README "Access control"). On when SERVICE_API_AUTH_TOKEN or
 * SERVICE_API_KEYS_FILE is set (lib/access/key-store.ts holds the keys, re-read without restart).
 *
 * - onRequest: who is calling (an API key in `Authorization`, or a run token: lib/access/run-tokens.ts)
 *   → 401; then the route's declared scope (`config: access(scope, target)`, lib/access/scopes.ts) → 403.
 *   Stream routes (`queryToken`) also read `?access_token=`, where only run tokens are accepted
 *   (a key there would be kept in logs and browser history) unless SERVICE_API_QUERY_KEYS_ALLOWED.
 * - preHandler: a key limited to catalogs or workflow-name patterns, checked against what the
 *   request touches (the body and the run are known only by then) → 403.
 * Open routes declare `config: { public: true }` or lie under /docs or /ui (isOpenPath); CORS preflights
 * pass (no credentials come with them). Credentials never reach the log (lib/log-redaction.ts): the
 * keys file's run-token secrets are handed to the log's redactor, which re-reads them after each reload.
 */
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ApiError } from '../../../lib/api-error.js'
import { describeRun } from '../../../lib/execution.js'
import { catalogOf } from '../../../lib/start-workflow.js'
import { KeyStore } from '../../../lib/access/key-store.js'
import type { Redactor } from '../../../lib/log-redaction.js'
import { RunTokens, RunTokenError, looksLikeRunToken } from '../../../lib/access/run-tokens.js'
import { assertBound, assertCatalog, assertScope, assertWorkflowName, forbidden, isLimited, type Principal } from '../../../lib/access/principal.js'
import type { Target } from '../../../lib/access/scopes.js'
import { SCOPES, type Scope } from '../../../schemas/access.js'
import { runTokenSecrets } from '../../../plugins/external/config.js'
import { ConfigError } from '../../../lib/config-error.js'
import { isProduction } from '@flowport/worker/settings'
import { errors } from '../../../schemas/common.js'
import type { StartWorkflowBody } from '../../../schemas/workflow.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The valid API keys; `enabled` is false when auth is off. */
    keys: KeyStore
    runTokens: RunTokens
    /** Every route's access declaration, as registered (test/access-routes.test.ts walks it). */
    accessTable: RouteAccess[]
  }
  interface FastifyRequest {
    /** Who the request acts as; null when auth is off or the route is open. */
    principal: Principal | null
  }
}

export interface RouteAccess { method: string, url: string, public: boolean, scope?: Scope, target?: Target }

/**
 * Paths open without a credential: Swagger UI and the run inspector's static files (plugins/external/ui.ts).
 * Neither holds data; the pages ask for a key and send it with each API call they make.
 */
const isOpenPath = (url: string) => url.startsWith('/docs') || /^\/ui(?:[/?]|$)/.test(url)

const unauthorized = (message: string) => new ApiError(401, 'UnauthorizedError', message)

/** The credential in `Authorization` (`Bearer` or `Basic`, the raw value), or undefined. */
function headerCredential (authorization: string | undefined): string | undefined {
  return authorization?.match(/^(?:Basic|Bearer)\s+(\S+)\s*$/i)?.[1]
}

/** `?access_token=`: Fastify's query parser has decoded name and value; a repeated parameter (an array) is refused. */
function queryCredential (request: FastifyRequest): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.access_token
  return typeof value === 'string' && value !== '' ? value : undefined
}

const QUERY_KEY_REFUSED = 'API keys are refused in the query string: they would be kept in logs, proxies and browser history. ' +
  'Send Authorization: Bearer <key>, or give the browser a run token (POST /tokens)'

/**
 * Records each route's declaration, and adds the statuses every protected route can answer and
 * its scope to the OpenAPI document.
 */
function declareAccess (fastify: FastifyInstance): void {
  const table: RouteAccess[] = []
  fastify.decorate('accessTable', table)
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
    schema.security = [{ bearerAuth: roles }, { basicToken: roles }, ...(config?.queryToken ? [{ runToken: roles }] : [])]
    schema['x-flowport-scope'] = scope ?? 'every scope'
  })
}

export interface AuthOptions {
  /** The log's redactor (app.ts), told about the keys file's secrets. */
  redactor: Redactor
}

export default fp<AuthOptions>(async (fastify, { redactor }) => {
  const { config } = fastify
  declareAccess(fastify)
  const store = new KeyStore({ file: config.SERVICE_API_KEYS_FILE, token: config.SERVICE_API_AUTH_TOKEN, log: fastify.log })
  // Before anything logs: the file's secrets, and each one a reload adds, are redacted from every line.
  redactor.follow(() => store.runTokenSecrets)
  if (config.SERVICE_API_KEYS_FILE !== undefined && store.keys.length === 0 && isProduction(config.NODE_ENV)) {
    throw new ConfigError(`SERVICE_API_KEYS_FILE ${config.SERVICE_API_KEYS_FILE} holds no key and SERVICE_API_AUTH_TOKEN is unset: nobody could call the API`)
  }
  // The keys file's secrets, when it lists some, replace the setting's, and rotate with the file.
  const fromSetting = runTokenSecrets(config)
  const runTokens = new RunTokens(() => store.runTokenSecrets ?? fromSetting)
  fastify.decorate('keys', store)
  fastify.decorate('runTokens', runTokens)
  fastify.decorateRequest('principal', null)
  if (!store.enabled) return
  if (runTokens.ephemeral) fastify.log.info('No run-token secret (SERVICE_RUN_TOKEN_SECRETS, or runTokenSecrets in the keys file): run tokens are signed with a secret of this process (valid on this replica only, until it restarts)')
  store.watch()
  fastify.addHook('onClose', async () => { store.stop() })

  async function authenticate (given: string, viaQuery: boolean): Promise<Principal> {
    const key = store.find(given)
    if (key) {
      if (viaQuery && !config.SERVICE_API_QUERY_KEYS_ALLOWED) throw unauthorized(QUERY_KEY_REFUSED)
      if (key.expiresAt !== undefined && key.expiresAt <= Date.now()) throw unauthorized(`Key ${key.id} has expired`)
      return { keyId: key.id, kind: 'key', scopes: key.scopes, key }
    }
    if (!looksLikeRunToken(given)) throw unauthorized('Invalid token')
    const claims = await runTokens.verify(given).catch((err: unknown) => {
      throw unauthorized(err instanceof RunTokenError ? `Run token ${err.message}` : 'Invalid token')
    })
    // A run token lives no longer than its issuer: removing or expiring the key revokes its tokens.
    const issuer = store.keys.find((k) => k.id === claims.keyId)
    if (!issuer || (issuer.expiresAt !== undefined && issuer.expiresAt <= Date.now())) throw unauthorized('Run token of a key that is no longer valid')
    const scopes = new Set(claims.scopes.filter((s) => issuer.scopes.has(s)))
    return { keyId: issuer.id, kind: 'run-token', scopes, key: issuer, bound: { workflowId: claims.workflowId, runId: claims.runId } }
  }

  fastify.addHook('onRequest', async (request) => {
    const route = request.routeOptions.config
    if (route.public || isOpenPath(request.url)) return
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) return
    const fromHeader = headerCredential(request.headers.authorization)
    const fromQuery = fromHeader === undefined && route.queryToken ? queryCredential(request) : undefined
    const given = fromHeader ?? fromQuery
    if (given === undefined) throw unauthorized('Missing credentials: send Authorization: Bearer <token>')
    const principal = await authenticate(given, fromQuery !== undefined)
    request.principal = principal
    // An unknown route answers 404 to any valid credential.
    if (request.is404) return
    // A route that declares no scope needs them all (fail closed; test/access-routes.test.ts catches it).
    for (const scope of route.scope ? [route.scope] : SCOPES) assertScope(principal, scope)
    const params = request.params as { id?: string, rid?: string }
    if (principal.bound) assertBound(principal, route.target === 'workflow' ? params.id : undefined, params.rid)
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
    assertTarget(fastify, request, principal).then(() => { done() }, done)
  })
}, { name: 'access', dependencies: ['config', 'errors'] })

/** The catalog and workflow-name limits, against what the request touches. */
async function assertTarget (fastify: FastifyInstance, request: FastifyRequest, p: Principal): Promise<void> {
  const target = request.routeOptions.config.target ?? 'none'
  if (target === 'workflow') {
    const { id, rid } = request.params as { id: string, rid?: string }
    const execution = await describeRun(fastify, { workflowId: id, runId: rid })
    const ctx = { workflowId: id, runId: execution.runId }
    assertCatalog(p, execution.taskQueue, ctx)
    assertWorkflowName(p, execution.type, ctx)
  } else if (target === 'catalog') {
    const { catalogId } = request.params as { catalogId?: string }
    assertCatalog(p, catalogId ?? fastify.config.SERVICE_CATALOG_ID)
  } else if (target === 'start') {
    await assertStartable(fastify, p, request.body as StartWorkflowBody)
  } else if (target === 'schedule') {
    const stored = await fastify.schedules.target((request.params as { scheduleId: string }).scheduleId)
    assertCatalog(p, stored.catalog)
    assertWorkflowName(p, stored.workflowName)
    // A replacement names what the schedule will start from now on.
    const body = request.body as StartWorkflowBody | undefined
    if (body?.workflowName !== undefined) await assertStartable(fastify, p, body)
  } else if (target === 'batch') {
    // A batch acts on whatever a visibility query matches, possibly beyond the key's catalogs and workflows.
    throw forbidden(`Key ${p.keyId} is limited to catalogs or workflows; batch operations need a key without limits`)
  } else if (target === 'runs') {
    const { catalog, workflowName } = request.query as { catalog?: string, workflowName?: string }
    if (p.key.catalogs && catalog === undefined) throw forbidden(`Key ${p.keyId} may only list runs of its catalogs: filter with ?catalog=`)
    if (catalog !== undefined) assertCatalog(p, catalog)
    if (p.key.workflows && workflowName === undefined) throw forbidden(`Key ${p.keyId} may only list runs of its workflows: filter with ?workflowName=`)
    if (workflowName !== undefined) assertWorkflowName(p, workflowName)
  }
}

/** The catalog and workflow a start (or a schedule's body) names. */
async function assertStartable (fastify: FastifyInstance, p: Principal, body: StartWorkflowBody): Promise<void> {
  const catalog = catalogOf(fastify, body)
  assertCatalog(p, catalog)
  // The canonical name is what runs: an alias must not open a workflow the patterns exclude.
  if (p.key.workflows) assertWorkflowName(p, (await fastify.catalogs.workflow(catalog, body.workflowName)).name)
}
