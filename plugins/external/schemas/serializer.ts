/**
 * Response serialization: Fastify's own compiler (fast-json-stringify), but each route's
 * serializer of each status is compiled on its first use instead of at start. Every route
 * declares a response schema for every status it can send, most of them errors that a process
 * may never send; compiled up front they were about a third of the API's heap at start
 * (docs/performance.md, "Read path and memory").
 * @see https://fastify.dev/docs/latest/Reference/Server/#schemacontroller
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

type Factory = ReturnType<typeof SerializerSelector>

export const buildSerializer: Factory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options)
  return (route) => {
    let serialize: ((doc: unknown) => string) | undefined
    return (doc) => (serialize ??= compile(route))(doc)
  }
}
