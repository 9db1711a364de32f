/**
 * GET /access: the caller's own credential (its key, scopes and limits), so a page such as the
 * inspector can disable what the key may not do and say why, before a 403. Scope `read`: every key
 * that can read anything else may read this; it tells nothing about other keys.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { access } from '../lib/http/access.js'
import { errorsFor, response } from '../schemas/common.js'
import { CallerAccessSchema } from '../schemas/access.js'

const callerAccess: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/access', {
    config: access('read', 'none'),
    schema: {
      tags: ['access'],
      operationId: 'getCallerAccess',
      summary: 'What the credential of this request may do',
      description: 'The key (for a run token: its issuer), its scopes and its catalog and workflow limits. With auth off: `auth: false` and every scope. ' +
        'A run token is refused (403): it opens only the routes of its workflow id.',
      response: { 200: response(CallerAccessSchema, 'The credential\'s key, scopes and limits'), ...errorsFor(500) }
    }
  }, async (request) => fastify.access.callerAccess(request.principal))
}

export default callerAccess
