/** Serializers compiled at first use: up front, the error statuses a process may never send were a third of its heap (docs/performance.md). */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

type Factory = ReturnType<typeof SerializerSelector>

export const buildSerializer: Factory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options)
  return (route) => {
    let serialize: ((doc: unknown) => string) | undefined
    return (doc) => (serialize ??= compile(route))(doc)
  }
}
