/**
 * Large payloads by reference (docs/large-payloads.md): `fastify.payloads` is the payloads
 * service (./payloads.ts): the payload store (null when no object store is configured: the
 * feature is off), the data converter the engine client loads (plugins/app/engine/), uploads and
 * values answered inline or by link, with the settings the worker uses.
 */
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
