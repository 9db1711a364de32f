/**
 * Calls the packages' `onError` hooks (discovery/error-hooks.ts) for failed step attempts, failed
 * runs and the worker's own errors, off the run's path; which hook gets which event, and why, is
 * worker/README.md, "Error hooks".
 */
import { randomUUID } from 'node:crypto'
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker'
import { CancelledFailure } from '@temporalio/common'
import { within } from '@flowport/core/bounded'
import { isReserved } from '@flowport/core/contract'
import { parseActivityType } from '@flowport/core/steps'
import { errorInfo, type ErrorEvent, type ErrorEventBase } from '../common/error-hook.js'
import type { Logger } from '../common/logger.js'
import type { LoadedErrorHook } from './discovery/error-hooks.js'
import type { FlowportSinks } from '../workflow/runtime.js'

/** The sink the workflow runtime (worker/src/workflow/runtime.ts) reports a failed run through. */
export const ERROR_SINK = 'flowportErrors' satisfies keyof FlowportSinks

export const DEFAULT_ERROR_HOOK_TIMEOUT_MS = 10_000

/** Flowport's own workflows (catalog, webhook, eval and its check): their errors are no package's. */

/** An event as its source reports it; `emit` adds the id and the time. */
type Reported<E = ErrorEvent> = E extends ErrorEvent ? Omit<E, keyof ErrorEventBase> : never

/** For log lines: the run an event concerns. */
const runOf = (event: ErrorEvent): string => event.workflowId === null ? '' : ` (run ${event.workflowId}${event.runId === null ? '' : `/${event.runId}`})`

export class ErrorHooks {
  private readonly running = new Set<Promise<void>>()

  /** `packageOf`: the package that defines a workflow (by canonical name); its hook alone gets that workflow's errors. */
  constructor (
    private readonly hooks: LoadedErrorHook[],
    private readonly logger: Logger,
    private readonly timeoutMs = DEFAULT_ERROR_HOOK_TIMEOUT_MS,
    private readonly packageOf: (workflowName: string) => string | undefined = () => undefined
  ) {}

  get size (): number {
    return this.hooks.length
  }

  /** Calls the hooks the event is for (its workflow's package's; every hook for a runtime error); returns at once. */
  emit (reported: Reported): void {
    const event = { ...reported, eventId: randomUUID(), time: new Date().toISOString() } as ErrorEvent
    const owner = event.source === 'runtime' ? undefined : this.packageOf(event.workflowName)
    const ids = { eventId: event.eventId, workflowId: event.workflowId, runId: event.runId }
    for (const { package: name, hook } of this.hooks) {
      if (event.source !== 'runtime' && name !== owner) continue
      const abort = new AbortController()
      const call = Promise.resolve().then(async () => { await hook(event, { signal: abort.signal }) })
      const settled = within(call, this.timeoutMs, 'late' as const).then((outcome) => {
        if (outcome !== 'late') return
        abort.abort(new Error(`onError hook timed out after ${this.timeoutMs} ms`))
        this.logger.warn(`onError hook of ${name} did not finish within ${this.timeoutMs} ms (${event.source} error${runOf(event)}); no longer waited for`, ids)
      }, (err: unknown) => {
        this.logger.error(`onError hook of ${name} threw on a ${event.source} error${runOf(event)}: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`, ids)
      }).finally(() => this.running.delete(settled))
      this.running.add(settled)
    }
  }

  /** Waits for the calls in progress (each bounded by the timeout): on shutdown. */
  async drain (): Promise<void> {
    await Promise.allSettled([...this.running])
  }

  /** Reports each failed attempt of a workflow's step or evaluator (not a cancellation). */
  stepInterceptor (): ActivityInterceptorsFactory {
    return (ctx) => ({
      inbound: {
        execute: async (input, next) => {
          try {
            return await next(input)
          } catch (err) {
            const { info } = ctx
            const run = info.workflowExecution
            // Flowport's own workflows' errors are no package's, an evaluator's too: it is named after the judged workflow but runs in an eval run.
            if (run !== undefined && !(err instanceof CancelledFailure) && info.workflowType !== undefined && !isReserved(info.workflowType)) {
              const { workflow, step } = parseActivityType(info.activityType)
              this.emit({ source: 'step', workflowName: workflow, workflowId: run.workflowId, runId: run.runId, step, activityType: info.activityType, attempt: info.attempt, error: errorInfo(err) })
            }
            throw err
          }
        }
      }
    })
  }

  /** The sink a failed run comes out through; `canonical` maps a workflow type (or alias) to its name. */
  sink (canonical: (workflowType: string) => string): InjectedSinks<Pick<FlowportSinks, typeof ERROR_SINK>> {
    return {
      [ERROR_SINK]: {
        failed: {
          fn: (info, error) => {
            if (isReserved(info.workflowType)) return
            this.emit({ source: 'workflow', workflowName: canonical(info.workflowType), workflowId: info.workflowId, runId: info.runId, error })
          },
          callDuringReplay: false
        }
      }
    }
  }

  /** A logger that also reports its warnings and errors as runtime errors (the trace keeper's and write queue's). */
  reporting (logger: Logger): Logger {
    const report = (message: string, meta?: Record<string, unknown>): void => {
      const id = (key: string): string | null => typeof meta?.[key] === 'string' ? meta[key] : null
      this.emit({ source: 'runtime', message, workflowId: id('workflowId'), runId: id('runId'), error: meta?.error === undefined ? null : errorInfo(meta.error) })
    }
    return {
      debug: logger.debug,
      info: logger.info,
      warn: (message, meta) => { logger.warn(message, meta); report(message, meta) },
      error: (message, meta) => { logger.error(message, meta); report(message, meta) }
    }
  }
}
