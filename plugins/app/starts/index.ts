/**
 * Decorates `fastify.starts`: starting runs from requests (./starts.ts).
 */
import fp from 'fastify-plugin'
import { describeRun } from '../../../lib/execution.js'
import { readRunInput, waitForCloseEvent } from '../../../lib/run-history.js'
import { resultOf } from '../../../lib/workflow-result.js'
import { updateFailure } from '../../../lib/handlers.js'
import { createStarts, type Starts } from './starts.js'

declare module 'fastify' {
  interface FastifyInstance { starts: Starts }
}

export default fp(async (fastify) => {
  fastify.decorate('starts', createStarts({
    engine: fastify.engine,
    catalogs: fastify.catalogs,
    payloads: fastify.payloads,
    webhooks: fastify.webhooks,
    // wired at merge
    runs: {
      describe: async (options) => await describeRun(fastify, options),
      waitForCloseEvent: async (run, wait) => await waitForCloseEvent(fastify, run, wait),
      readInput: async (run, signal) => await readRunInput(fastify, run, signal),
      resultOf: async (run, input, closeEvent) => await resultOf(fastify, run, input, closeEvent),
      updateFailure: async (err, attempt) => await updateFailure(fastify, err, attempt)
    },
    config: fastify.config
  }))
}, { name: 'starts', dependencies: ['config', 'engine', 'catalogs', 'payloads', 'webhooks'] })
