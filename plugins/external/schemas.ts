/**
 * Registers the named schemas of schemas/index.ts, once, before any route refers to them.
 */
import fp from 'fastify-plugin'
import { schemas } from '../../schemas/index.js'

export default fp(async (fastify) => {
  for (const schema of schemas) fastify.addSchema(schema)
}, { name: 'schemas' })
