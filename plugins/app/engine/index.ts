import fp from 'fastify-plugin'
import { createEngine, type Engine } from './engine.js'

export { versionOf, versionValue } from './deployment-version.js'
export type { Engine } from './engine.js'
export { fromEngineError, grpcCode, grpcFailure } from './errors.js'
export { POLLER_RECENT_MS, isAlive, isUnversioned, lastPollMs, workflowQueue } from './pollers.js'
export { closeKindOf, continuedAs, nextRunOf, type HistoryEvent } from './runs/close-events.js'
export { SHORT_HISTORY_EVENTS, readCloseEvent, readCloseEventIfClosed, readLatestPage, readRunStart, readStartAndClose, timedOut, waitForCloseEvent, type CloseWait, type LatestPage, type RunStart } from './runs/history.js'
export { alreadyClosed, closedMeanwhile, isReservedWorkflowId, runNotFound } from './runs/run.js'
export { overrideOf, runVersionOfAttributes, runVersionOfInfo, type RunVersion } from './runs/run-version.js'
export { statusFromEngine, visibilityName } from './runs/status.js'
export { idOf, stepAfter, stepCalls, type StepCall } from './runs/step-calls.js'

declare module 'fastify' {
  interface FastifyInstance { engine: Engine }
}

export default fp(async (fastify) => {
  // Imported only with tracing on (docs/performance.md, "Memory of the API process at start").
  const workflowInterceptors = fastify.tracing === null
    ? undefined
    : [new (await import('@temporalio/interceptors-opentelemetry/lib/client/index.js')).OpenTelemetryWorkflowClientInterceptor()]
  const engine = createEngine({
    config: fastify.config,
    onOpen: (reason) => { fastify.log.warn({ reason }, 'engine unreachable: answering 503 until it is back') },
    onClose: (downMs) => { fastify.log.info({ downMs }, 'engine reachable again') },
    metrics: fastify.metrics?.engineInterceptor(),
    workflowInterceptors,
    dataConverter: fastify.payloads.dataConverter
  })
  fastify.decorate('engine', engine)
  fastify.addHook('onClose', async () => { await engine.close() })
}, { name: 'engine', dependencies: ['config', 'metrics', 'tracing', 'payloads'] })
