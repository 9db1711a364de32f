/**
 * `keepPolling`: a worker that is either polling or gone. Any failure that needs the engine
 * (connecting, creating the worker, publishing the catalog, a poller that stops on an error) is
 * retried with backoff until the engine has been out of reach for `retryWindowMs`; then `done`
 * resolves to 1 so that a supervisor (the dev stack, Kubernetes, systemd) restarts the process.
 * Workflow definition errors are not retried: they are the same on every attempt; nor is a catalog
 * id that a catalog file declared (docs/any-worker.md).
 */
import { isGrpcServiceError, ServiceError, WorkflowNotFoundError } from '@temporalio/client'
import { formatMs, formatSeconds } from '@flowport/core/duration'
import { consoleLogger, type Logger } from '../common/logger.js'
import { prepareWorker, startPreparedWorker, type WorkerHandle, type WorkerOptions } from './start-worker.js'
import { CatalogDeclaredError } from './publish.js'

export interface KeepPollingOptions {
  /** How long the engine may stay out of reach before giving up. */
  retryWindowMs: number
  /** First and longest pause between attempts. */
  minBackoffMs?: number
  maxBackoffMs?: number
}

export interface PollingWorker {
  /** `starting` and `retrying` have no poller; `polling` has one while the engine answers. */
  state: () => 'starting' | 'polling' | 'retrying' | 'stopping'
  isPolling: () => Promise<boolean>
  /** Stops polling and lets running tasks finish; `done` then resolves to 0. */
  stop: () => void
  /** The process's exit code: 0 after `stop`, 1 on a definition error or when the engine stayed away. */
  done: Promise<number>
}

/**
 * What is kept polling: a catalog's worker by default, or the delivery worker (delivery-worker.ts).
 * Prepared once (a definition error is not retried), then started as often as the engine needs.
 */
export type Starter = () => Promise<() => Promise<Running>>
type Running = Pick<WorkerHandle, 'shutdown' | 'done' | 'isPolling'>

export const catalogWorker = (options: WorkerOptions): Starter => async () => {
  const prepared = await prepareWorker(options)
  return async () => await startPreparedWorker(prepared, options)
}

export function keepPolling (options: Pick<WorkerOptions, 'logger'>, { retryWindowMs, minBackoffMs = 500, maxBackoffMs = 10_000 }: KeepPollingOptions, starter: Starter): PollingWorker {
  const logger: Logger = options.logger ?? consoleLogger
  let state: ReturnType<PollingWorker['state']> = 'starting'
  let current: Running | undefined
  let wake: (() => void) | undefined
  const stopped = () => state === 'stopping'
  const pause = (ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    wake = () => { clearTimeout(timer); resolve() }
  })

  const run = async (): Promise<number> => {
    let start
    try {
      start = await starter()
    } catch (err) {
      // Whole: a definition error names each problem on a line of its own (webpack's report too).
      logger.error(err instanceof Error ? `${err.name}: ${err.message}` : String(err))
      return 1
    }
    let backoff = minBackoffMs
    let outSince = Date.now()
    while (!stopped()) {
      try {
        current = await start()
        if (stopped()) { await current.shutdown(); break }
        state = 'polling'
        backoff = minBackoffMs
        await current.done
        if (stopped()) break
        throw new Error('the worker stopped polling')
      } catch (err) {
        if (stopped()) break
        // The same on every attempt, until someone removes the declared catalog.
        if (err instanceof CatalogDeclaredError) {
          logger.error(err.message)
          return 1
        }
        if (state === 'polling') outSince = Date.now()
        state = 'retrying'
        const outFor = Date.now() - outSince
        // An engine that answers with an error is not away: say what failed instead.
        const away = !engineAnswered(err)
        if (outFor >= retryWindowMs) {
          logger.error(away ? `Engine out of reach for ${formatSeconds(outFor)}, giving up: ${describe(err)}` : `Starting the worker failed for ${formatSeconds(outFor)}, giving up: ${describe(err)}`)
          return 1
        }
        const wait = Math.min(backoff, retryWindowMs - outFor)
        logger.warn(away ? `Engine unavailable (${describe(err)}); retrying in ${formatMs(wait)}` : `Starting the worker failed although the engine answers (${describe(err)}); retrying in ${formatMs(wait)}`)
        await pause(wait)
        backoff = Math.min(backoff * 2, maxBackoffMs)
      }
    }
    return 0
  }

  const done = run()
  return {
    state: () => state,
    isPolling: async () => state === 'polling' && current !== undefined && await current.isPolling(),
    stop: () => {
      if (stopped()) return
      state = 'stopping'
      wake?.()
      current?.shutdown().catch(() => {}) // the outcome is reported through `done`
    },
    done
  }
}

/** gRPC codes of a call the engine did not answer: CANCELLED, UNKNOWN, DEADLINE_EXCEEDED, UNAVAILABLE. */
const UNANSWERED = new Set([1, 2, 4, 14])

/** Whether the engine itself answered the failed call (with an error), as opposed to being out of reach. */
function engineAnswered (err: unknown): boolean {
  if (err instanceof WorkflowNotFoundError) return true
  const cause = err instanceof ServiceError && err.cause !== undefined ? err.cause : err
  return isGrpcServiceError(cause) && !UNANSWERED.has(cause.code)
}

function describe (err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message.split('\n')[0]}` : String(err)
}
