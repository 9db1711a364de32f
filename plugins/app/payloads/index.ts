/**
 * Large payloads by reference (docs/large-payloads.md): `fastify.payloads` holds the payload store
 * and the claim-check codec the engine client loads (plugins/app/engine/), with the settings the
 * worker uses; null when no object store is configured (the feature is off).
 */
import fp from 'fastify-plugin'
import { ClaimCheckCodec, PayloadStore, payloadSettingsFrom } from '@flowport/core/payloads'

declare module 'fastify' {
  interface FastifyInstance { payloads: { store: PayloadStore, codec: ClaimCheckCodec } | null }
}

export default fp(async (fastify) => {
  const settings = payloadSettingsFrom(fastify.config)
  const store = settings === null ? null : new PayloadStore(settings)
  fastify.decorate('payloads', store === null ? null : { store, codec: new ClaimCheckCodec(store) })
  fastify.addHook('onClose', async () => { store?.close() })
}, { name: 'payloads', dependencies: ['config'] })
