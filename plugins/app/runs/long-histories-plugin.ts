/**
 * Decorates `fastify.longHistories`: which workflow ids' latest-run reads start with a describe
 * rather than the first page of their history (lib/long-histories.ts).
 */
import fp from 'fastify-plugin'
import { LongHistories } from '../../../lib/long-histories.js'

declare module 'fastify' {
  interface FastifyInstance {
    longHistories: LongHistories
  }
}

export default fp(async (fastify) => {
  fastify.decorate('longHistories', new LongHistories())
  fastify.addHook('onClose', async () => { fastify.longHistories.clear() })
}, { name: 'longHistories' })
