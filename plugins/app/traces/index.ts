/**
 * Execution traces (docs/traces.md): `fastify.traces` reads the destinations workers write (the
 * local directory, the bucket) with the same settings they use; null when tracing is off.
 */
import fp from 'fastify-plugin'
import { TraceStore, traceSettingsFrom } from '@flowport/core/trace'

declare module 'fastify' {
  interface FastifyInstance { traces: TraceStore | null }
}

export default fp(async (fastify) => {
  const settings = traceSettingsFrom(fastify.config)
  const store = settings === null ? null : new TraceStore(settings)
  // The API reads the directory its workers write (the same setting): one it cannot write is named nowhere.
  const problem = await store?.checkLocalDir()
  if (problem) fastify.log.warn(problem)
  fastify.decorate('traces', store)
  fastify.addHook('onClose', async () => { store?.close() })
}, { name: 'traces', dependencies: ['config'] })
