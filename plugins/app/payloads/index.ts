import fp from 'fastify-plugin'
import { createPayloads, type Payloads, type PayloadsOptions } from './payloads.js'

export type { Payloads } from './payloads.js'

declare module 'fastify' {
  interface FastifyInstance { payloads: Payloads }
}

export default fp<Pick<PayloadsOptions, 'storeStarting'>>(async (fastify, { storeStarting }) => {
  const payloads = createPayloads({ config: fastify.config, storeStarting })
  fastify.decorate('payloads', payloads)
  fastify.addHook('onClose', async () => { payloads.close() })
}, { name: 'payloads', dependencies: ['config'] })
