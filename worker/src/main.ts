/**
 * Production entry of the worker: settings from the environment, polls until SIGTERM/SIGINT, then
 * lets running tasks finish (ENGINE_SHUTDOWN_GRACE_MS) and exits 0. While the engine is away it
 * retries (SERVICE_WORKER_ENGINE_RETRY_MS) and then exits 1, as on a bad setting or a definition
 * error: a worker is either polling or gone, so that a supervisor can restart it. With the argument
 * `deliveries` (`flowport deliveries`) it is the delivery worker instead (runtime/delivery-worker.ts).
 */
import type { Server } from 'node:http'
import { CredentialsError, resolveCredentialSettings } from '@flowport/core/credentials'
import { readWorkerEnv, workerLogger, workerOptionsFromEnv, type WorkerEnv } from './env.js'
import { catalogWorker, keepPolling } from './runtime/keep-polling.js'
import { deliveryWorker } from './runtime/delivery-worker.js'
import { serveHealth } from './runtime/health-server.js'
import { createLogger, type Logger } from './common/logger.js'
import { isProduction } from '@flowport/core/settings'
import { installRuntime } from './runtime/telemetry.js'
import { startTracing } from '@flowport/core/tracing'

// Until the settings are read (and when they are bad): info and above, in the format NODE_ENV asks for.
let logger: Logger = createLogger({ json: isProduction(process.env.NODE_ENV) })

async function main (): Promise<number> {
  let settings: WorkerEnv
  try {
    // First: `credential:` settings are replaced before any setting is read or anything runs.
    const { loaded, location, resolved } = resolveCredentialSettings(process.env)
    if (loaded) logger.info(`Credentials of environment ${location.environment} read from ${location.file}${resolved.length > 0 ? `; resolved ${resolved.join(', ')}` : ''}`)
    settings = readWorkerEnv()
    logger = workerLogger(settings)
  } catch (err) {
    logger.error(err instanceof CredentialsError ? `${err.name}: ${err.message}` : (err as Error).message)
    return 1
  }
  const metricsPort = settings.SERVICE_WORKER_METRICS_PORT
  try {
    installRuntime(logger, { metricsPort })
  } catch (err) {
    logger.error(`${metricsPort === undefined ? 'The Temporal runtime' : `SERVICE_WORKER_METRICS_PORT=${metricsPort}`}: ${(err as Error).message}`)
    return 1
  }
  if (metricsPort !== undefined) logger.info(`Worker metrics on port ${metricsPort}: /metrics`)
  const tracing = await startTracing(settings, 'flowport-worker')
  if (tracing !== null) logger.info('Worker traces go to the OTLP endpoint of the OTEL_* settings')
  const options = { ...workerOptionsFromEnv(settings), logger, tracing }
  const deliveries = process.argv.slice(2).includes('deliveries')
  const worker = keepPolling(options, { retryWindowMs: settings.SERVICE_WORKER_ENGINE_RETRY_MS }, deliveries ? deliveryWorker(options) : catalogWorker(options))
  const stop = (signal: string): void => {
    // npm and shells may deliver the same signal twice; one shutdown is enough.
    if (worker.state() === 'stopping') return
    logger.info(`${signal} received, shutting down`)
    worker.stop()
  }
  process.on('SIGTERM', () => { stop('SIGTERM') })
  process.on('SIGINT', () => { stop('SIGINT') })

  let health: Server | undefined
  if (settings.SERVICE_WORKER_HEALTH_PORT !== undefined) {
    try {
      health = await serveHealth(worker, settings.SERVICE_WORKER_HEALTH_PORT)
      logger.info(`Worker probes on port ${settings.SERVICE_WORKER_HEALTH_PORT}: /health, /ready`)
    } catch (err) {
      logger.error(`SERVICE_WORKER_HEALTH_PORT=${settings.SERVICE_WORKER_HEALTH_PORT}: ${(err as Error).message}`)
      worker.stop()
      await worker.done
      return 1
    }
  }
  const code = await worker.done
  health?.close()
  // The spans of the last runs are still in the batch: send them before exiting.
  await tracing?.shutdown().catch((err: unknown) => { logger.warn(`Traces not flushed: ${(err as Error).message}`) })
  logger.info(code === 0 ? 'Worker stopped' : 'Worker exiting with code 1')
  return code
}

// Exit explicitly: the Temporal runtime and the bundler keep handles open, and a worker without a
// poller must not stay alive because of them.
main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    logger.error(err instanceof Error ? `${err.name}: ${err.message}` : String(err))
    process.exit(1)
  }
)
