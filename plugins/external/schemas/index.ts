/**
 * The schemas at work: this plugin registers the named schemas of schemas/index.ts, once, before
 * any route refers to them; app.ts hands Fastify the compilers beside it (validator.ts,
 * serializer.ts). A rule set by the deployment enters its schema here, so that /openapi.json
 * states it: the run token request's `ttl` cap.
 */
import fp from 'fastify-plugin'
import { schemas } from '../../../schemas/index.js'
import { runTokenRequestSchema, RunTokenRequestSchema } from '../../../schemas/tokens.js'

export default fp(async (fastify) => {
  for (const schema of schemas) {
    fastify.addSchema(schema === RunTokenRequestSchema ? runTokenRequestSchema(fastify.config.SERVICE_RUN_TOKEN_MAX_TTL_S) : schema)
  }
}, { name: 'schemas', dependencies: ['config'] })
