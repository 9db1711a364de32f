/**
 * The schedule endpoints under /schedules (docs/schedules.md): recurring runs kept by the engine.
 * Reads need the `read` scope; creating, replacing, pausing, triggering, backfilling and deleting
 * need `run`: a schedule starts runs, and whoever may create one may also stop and remove it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import create from './create.js'
import read from './read.js'
import replace from './replace.js'
import actions from './actions.js'
import remove from './delete.js'

const schedules: FastifyPluginAsyncTypebox = async (fastify) => {
  for (const group of [create, read, replace, actions, remove]) await fastify.register(group)
}

export default schedules
