/**
 * POST /tokens: short-lived run tokens for browsers (docs/access-control.md).
 */
import { Type, type Static } from '@sinclair/typebox'
import { RunIdSchema, WorkflowIdSchema, ref } from './common.js'
import { Literals } from './status.js'
import { RUN_TOKEN_SCOPES } from './access.js'
import { ConfigSchema } from './config.js'

/** A named enum (one `enum` of strings): generators make one type of it, which a union of literals breaks in some (Java `native`). */
export const RunTokenScopeSchema = Literals(RUN_TOKEN_SCOPES, { $id: 'RunTokenScope', description: 'A scope a run token may hold' })

/**
 * The request, with `ttl` capped at `maxTtl` (SERVICE_RUN_TOKEN_MAX_TTL_S): the schemas plugin
 * registers it with the deployment's own cap, so its /openapi.json states the rule it applies.
 */
export const runTokenRequestSchema = (maxTtl: number) => Type.Object({
  workflowId: WorkflowIdSchema,
  runId: Type.Optional({ ...RunIdSchema, description: 'Binds the token to this run: it then opens only the /workflow/{id}/runs/{rid}/… routes' }),
  scopes: Type.Array(ref(RunTokenScopeSchema), {
    minItems: 1,
    uniqueItems: true,
    description: 'At most the issuing key\'s own scopes',
    examples: [['read']]
  }),
  ttl: Type.Integer({ minimum: 1, maximum: maxTtl, description: `Lifetime in seconds; at most SERVICE_RUN_TOKEN_MAX_TTL_S (${maxTtl} on this server)`, examples: [Math.min(600, maxTtl)] })
}, { $id: 'RunTokenRequest', additionalProperties: false, examples: [{ workflowId: 'expense-42', scopes: ['read'], ttl: Math.min(600, maxTtl) }] })

/** With the default cap: the committed document's, and the request's type. */
export const RunTokenRequestSchema = runTokenRequestSchema(ConfigSchema.properties.SERVICE_RUN_TOKEN_MAX_TTL_S.default)

export const RunTokenSchema = Type.Object({
  token: Type.String({ description: 'Send as `?runToken=` on the stream routes, or as `Authorization: Bearer <token>`' }),
  expiresAt: Type.String({ format: 'date-time' })
}, { $id: 'RunToken', additionalProperties: false, examples: [{ token: 'eyJhbGciOiJIUzI1NiIsImtpZCI6IjVsV2Q3ZzJ4T2JrVyJ9.eyJzY3AiOlsicmVhZCJdfQ.c2lnbmF0dXJl', expiresAt: '2026-11-24T22:10:00.000Z' }] })

export type RunTokenRequest = Static<typeof RunTokenRequestSchema>
