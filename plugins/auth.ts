/**
 * Shared-token authentication: on whenever SERVICE_API_AUTH_TOKEN is set (schemas/config.ts refuses
 * a token that is blank, holds whitespace or, in production, is short). Open routes declare
 * `config: { public: true }`; stream routes declare `config: { queryToken: true }` because
 * EventSource cannot send headers: there, and only there, `?access_token=` (the decoded name and
 * value) is accepted too. CORS preflights never reach this hook's check (no credentials are sent
 * with them). The token never reaches the log (lib/log-redaction.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import fp from 'fastify-plugin'
import { ApiError } from '../lib/api-error.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    public?: boolean
    queryToken?: boolean
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest()

/** Constant-time comparison: hashing first makes both sides the same length. */
export function tokenMatches (given: string, expected: Buffer): boolean {
  return timingSafeEqual(digest(given), expected)
}

/** The token the request presents, or undefined; an empty one counts as none. */
function presentedToken (authorization: string | undefined, queryToken: unknown): string | undefined {
  const match = authorization?.match(/^(?:Basic|Bearer)\s+(\S+)\s*$/i)
  if (match) return match[1]
  // Fastify's query parser has decoded name and value; a repeated parameter (an array) is refused.
  return typeof queryToken === 'string' && queryToken !== '' ? queryToken : undefined
}

export default fp(async (fastify) => {
  const token = fastify.config.SERVICE_API_AUTH_TOKEN
  if (token === undefined) return
  const expected = digest(token)

  fastify.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config
    if (config.public || request.url.startsWith('/docs')) return
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) return
    const query = config.queryToken ? (request.query as Record<string, unknown> | undefined)?.access_token : undefined
    const given = presentedToken(request.headers.authorization, query)
    if (given === undefined || !tokenMatches(given, expected)) {
      throw new ApiError(401, 'UnauthorizedError', given === undefined ? 'Missing credentials: send Authorization: Bearer <token>' : 'Invalid token')
    }
  })
}, { name: 'auth', dependencies: ['config', 'errors'] })
