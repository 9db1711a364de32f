/**
 * Production entry of the worker: settings from the environment, runs until SIGTERM/SIGINT, then
 * lets running tasks finish (ENGINE_SHUTDOWN_GRACE_MS) and exits. Exit code 1 on any start error.
 */
import { readWorkerEnv, workerOptionsFromEnv } from './env.js'
import { startWorker } from './runtime/start-worker.js'
import { consoleLogger } from './runtime/logger.js'

async function main (): Promise<void> {
  const options = workerOptionsFromEnv(readWorkerEnv())
  const worker = await startWorker({ ...options, logger: consoleLogger })
  let stopping = false
  const stop = (signal: string): void => {
    // npm and shells may deliver the same signal twice; one shutdown is enough.
    if (stopping) return
    stopping = true
    consoleLogger.info(`${signal} received, shutting down`)
    worker.shutdown().catch(() => {}) // the outcome is reported through `done`
  }
  process.on('SIGTERM', () => { stop('SIGTERM') })
  process.on('SIGINT', () => { stop('SIGINT') })
  await worker.done
  consoleLogger.info('Worker stopped')
}

main().catch((err: unknown) => {
  consoleLogger.error(err instanceof Error ? `${err.name}: ${err.message}` : String(err))
  process.exitCode = 1
})
