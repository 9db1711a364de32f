/**
 * The schedule endpoints under /schedules (docs/schedules.md): recurring runs kept by the engine.
 * Reads need the `read` scope; creating, replacing, pausing, unpausing, triggering, backfilling and
 * deleting need `control` (README "Access control"): a schedule starts runs on its own, for as long as
 * it lives, which is an operator's power rather than a caller's one start.
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
