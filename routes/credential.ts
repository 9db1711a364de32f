/**
 * GET /me: what the request's own credential may do (scopes, limits, a run token's binding), so
 * that the inspector and tools disable what a key cannot do instead of learning it from a 403.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { access } from '../plugins/app/access/route-access.js'
import { errorsFor, response } from '../schemas/common.js'
import { CredentialSchema, SCOPES, type Credential } from '../schemas/access.js'

const credential: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/me', {
    config: access('read', 'self'),
    schema: {
      tags: ['access'],
      operationId: 'getCredential',
      summary: 'What the credential of this request may do',
      description: 'Its kind, key id, scopes, catalog and workflow-name limits, and a run token\'s workflow id. With auth off: ' +
        '`kind: open` and every scope. Needs scope `read`.',
      response: { 200: response(CredentialSchema, 'The credential'), ...errorsFor(401, 403, 500) }
    }
  }, async (request): Promise<Credential> => {
    const p = request.principal
    if (!p) return { kind: 'open', keyId: null, scopes: [...SCOPES], catalogs: null, workflows: null, boundTo: null }
    return {
      kind: p.kind === 'run-token' ? 'runToken' : 'key',
      keyId: p.keyId,
      scopes: SCOPES.filter((s) => p.scopes.has(s)),
      catalogs: p.key.catalogs ? [...p.key.catalogs] : null,
      workflows: p.key.workflowPatterns ? [...p.key.workflowPatterns] : null,
      boundTo: p.bound ? { workflowId: p.bound.workflowId, runId: p.bound.runId ?? null } : null
    }
  })
}

export default credential
