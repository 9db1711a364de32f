/**
 * Decorates `fastify.config` with the validated settings (schemas/config.ts).
 * The app receives its config from the caller, so tests and the dev stack can pass their own.
 */
import fp from 'fastify-plugin'
import type { Config } from '../schemas/config.js'

declare module 'fastify' {
  interface FastifyInstance { config: Config }
}

export default fp<{ config: Config }>(async (fastify, opts) => {
  fastify.decorate('config', opts.config)
}, { name: 'config' })
