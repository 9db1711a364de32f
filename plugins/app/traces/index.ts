/** Reads the destinations workers write (directory, bucket) with their settings; null when tracing is off (docs/traces.md). */
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
