/** Registers the named schemas once; a rule the deployment sets enters its schema here, so /openapi.json states it. */
import fp from 'fastify-plugin'
import { schemas } from '../../../schemas/index.js'
import { runTokenRequestSchema, RunTokenRequestSchema } from '../../../schemas/tokens.js'

export default fp(async (fastify) => {
  for (const schema of schemas) {
    fastify.addSchema(schema === RunTokenRequestSchema ? runTokenRequestSchema(fastify.config.SERVICE_RUN_TOKEN_MAX_TTL_S) : schema)
  }
}, { name: 'schemas', dependencies: ['config'] })
