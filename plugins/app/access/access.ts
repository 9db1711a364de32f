/**
 * The access service: the valid API keys (./key-store.ts), run tokens (./run-tokens.ts), who a
 * credential is (authenticate), what a limited key may touch (./principal.ts), and the routes'
 * access declarations as registered (test/access-routes.test.ts walks them).
 */
import type { FastifyBaseLogger } from 'fastify'
import { isProduction } from '@flowport/core/settings'
import { ApiError } from '../../../lib/api-error.js'
import { ConfigError } from '../../../lib/config-error.js'
import type { Target } from './route-access.js'
import type { Redactor } from '../../../lib/log-redaction.js'
import type { Scope } from '../../../schemas/access.js'
import type { Config } from '../../../schemas/config.js'
import type { RunTokenRequest } from '../../../schemas/tokens.js'
import { KeyStore } from './key-store.js'
import { RunTokens, RunTokenError, looksLikeRunToken } from './run-tokens.js'
import { assertRunWithin, assertTarget, forbidden, isLimited, type Principal, type TargetLookup, type TargetRequest } from './principal.js'

export interface RouteAccess { method: string, url: string, public: boolean, scope?: Scope, target?: Target }

export type Access = ReturnType<typeof createAccess>

export type AccessConfig = Pick<Config, 'SERVICE_API_KEYS_FILE' | 'SERVICE_API_AUTH_TOKEN' | 'SERVICE_API_QUERY_KEYS_ALLOWED' |
  'SERVICE_CATALOG_ID' | 'NODE_ENV'>

export interface AccessDeps {
  config: AccessConfig
  /** The run-token secrets of the settings (the keys file's, when it lists some, replace them). */
  runTokenSecrets: string[]
  log: FastifyBaseLogger
  /** The log's redactor (app.ts), told about the keys file's secrets. */
  redactor: Redactor
  targets: TargetLookup
}

const QUERY_KEY_REFUSED = 'API keys are refused in the query string: they would be kept in logs, proxies and browser history. ' +
  'Send Authorization: Bearer <key>, or give the browser a run token (POST /tokens)'

export const unauthorized = (message: string) => new ApiError(401, 'UnauthorizedError', message)

export function createAccess ({ config, runTokenSecrets, log, redactor, targets }: AccessDeps) {
  const store = new KeyStore({ file: config.SERVICE_API_KEYS_FILE, token: config.SERVICE_API_AUTH_TOKEN, log })
  // Before anything logs: the file's secrets, and each one a reload adds, are redacted from every line.
  redactor.follow(() => store.runTokenSecrets)
  if (config.SERVICE_API_KEYS_FILE !== undefined && store.keys.length === 0 && isProduction(config.NODE_ENV)) {
    throw new ConfigError(`SERVICE_API_KEYS_FILE ${config.SERVICE_API_KEYS_FILE} holds no key and SERVICE_API_AUTH_TOKEN is unset: nobody could call the API`)
  }
  // The keys file's secrets, when it lists some, replace the setting's, and rotate with the file.
  const runTokens = new RunTokens(() => store.runTokenSecrets ?? runTokenSecrets)

  /** Who a credential is (401 when nobody); `viaQuery`: it came as `?runToken=` (or `?access_token=`). */
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

  return {
    /**
     * A credential found in the query string: 401 when it is an API key, whatever else the request
     * carries, unless the development switch allows keys on this route (a stream's).
     */
    refuseKeyInQuery (given: string, streamRoute: boolean): void {
      if (store.find(given) !== undefined && !(streamRoute && config.SERVICE_API_QUERY_KEYS_ALLOWED)) throw unauthorized(QUERY_KEY_REFUSED)
    },
    /** The valid API keys; `enabled` is false when auth is off. */
    keys: store,
    runTokens,
    /** Every route's access declaration, as registered (test/access-routes.test.ts walks it). */
    routes: [] as RouteAccess[],
    authenticate,
    /** A limited key's catalogs and workflow patterns, against what the request touches (403). */
    assertTarget: async (request: TargetRequest, p: Principal) => { await assertTarget(targets, config.SERVICE_CATALOG_ID, request, p) },
    /** POST /tokens: a run token with at most the issuer's scopes, for a run within its limits. */
    async issueRunToken (principal: Principal | null, { workflowId, runId, scopes, ttl }: RunTokenRequest): Promise<{ token: string, expiresAt: Date }> {
      const missing = principal ? scopes.filter((s) => !principal.scopes.has(s)) : []
      if (principal && missing.length > 0) throw forbidden(`Key ${principal.keyId} cannot grant scope ${missing.join(', ')}: it does not hold it`)
      if (principal && isLimited(principal)) await assertRunWithin(targets, principal, workflowId, runId)
      // With auth off no key issues it; nothing checks it either.
      return await runTokens.issue({ keyId: principal?.keyId ?? 'anonymous', workflowId, runId, scopes }, ttl)
    }
  }
}
