/** A run token carries at most the issuing key's scopes, and a limited key only gets tokens for runs within its limits. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { access } from '../plugins/app/access/route-access.js'
import { errorsFor, ref, response } from '../schemas/common.js'
import { RunTokenRequestSchema, RunTokenSchema } from '../schemas/tokens.js'

const tokens: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.post('/tokens', {
    config: access('admin', 'none'),
    schema: {
      tags: ['access'],
      operationId: 'createRunToken',
      summary: 'Issue a short-lived run token bound to one workflow id (and run), for a browser',
      description: 'The token opens only the routes of that workflow id (with `runId`, only those of that run) within its ' +
        'scopes, until `expiresAt`, and only while the issuing key stays valid. Only run tokens are accepted as `?runToken=` (API keys go in the header only). ' +
        '400: `ttl` above SERVICE_RUN_TOKEN_MAX_TTL_S. 403: a scope the key does not hold, or a run outside its limits. ' +
        '404: the key is limited to catalogs or workflow names and the workflow does not exist. With auth off a token is ' +
        'issued all the same (every route is open, so a page written for tokens works unchanged).',
      body: ref(RunTokenRequestSchema),
      response: { 200: response(RunTokenSchema, 'The run token and when it expires'), ...errorsFor(400, 401, 404, 413, 415, 500, 502, 503) }
    }
  }, async (request) => {
    const { token, expiresAt } = await fastify.access.issueRunToken(request.principal, request.body)
    return { token, expiresAt: expiresAt.toISOString() }
  })
}

export default tokens
