/**
 * The worker's trace keeper: writes the final trace of every run of its catalog once the run has
 * closed, however it closed.
 *
 * - When workflow code finishes (completed, failed, canceled after cleanup, continued as new) the
 *   run tells the keeper through a sink; the keeper waits for the close event and writes at once.
 * - Runs that close without workflow code (terminated, timed out), and runs whose keeper died
 *   before writing, are found by a sweep of the engine's visibility list of closed runs, every
 *   SERVICE_TRACE_SWEEP_MS; the first sweep after a start looks SERVICE_TRACE_LOOKBACK_MS back.
 *
 * - Local trace files older than SERVICE_TRACE_LOCAL_RETENTION_MS are removed, at most once an
 *   hour (local-retention.ts).
 *
 * The document is a pure function of the closed run's history and the recorded attempts, so two
 * workers that write the same run write the same bytes; no store but the engine and the
 * destinations is involved.
 */
import type { Client } from '@temporalio/client'
import protoRoot from '@temporalio/proto'
import { CATALOG_WORKFLOW_TYPE, WEBHOOK_WORKFLOW_TYPE } from '@flowport/core/contract'
import type { Logger } from '../common/logger.js'
import { assembleTrace, mayHaveFailedAttempts, readWholeHistory, type TraceStore } from '@flowport/core/trace'
import { removeLocalFilesOlderThan } from './local-retention.js'
import type { TraceWriteQueue } from './write-queue.js'

const { HistoryEventFilterType } = protoRoot.temporal.api.enums.v1

/** The sink workflow code calls when it finishes (see worker/src/workflow/runtime.ts). */
export const TRACE_SINK = 'flowportTrace'

/** How long the keeper waits for a close event after workflow code said it finished; the sweep covers longer. */
const CLOSE_WAIT_MS = 60_000
/** Visibility is eventually consistent: each sweep looks this far behind the previous one. */
const SWEEP_OVERLAP_MS = 30_000
/** How long a trace waits for this worker's queued attempt records; a store that hangs must not stall the keeper. */
const RECORDS_WAIT_MS = 10_000
/** Local retention is applied at most this often (and at least once per retention period). */
const RETENTION_EVERY_MS = 3_600_000

export interface TraceKeeperOptions {
  client: Client
  taskQueue: string
  store: TraceStore
  /** This worker's queue of failed-attempt records (recorder.ts), waited for before a trace is assembled. */
  attemptWrites: TraceWriteQueue
  isEvaluator: (activityType: string) => boolean
  logger: Logger
}

/**
 * The sweep's visibility query: the closed runs of a catalog since an instant. The catalog id is
 * a string literal: a backslash in it is escaped before the quotes, or `a\` would end as `'a\'`,
 * an unterminated literal the engine refuses.
 */
export function sweepQuery (taskQueue: string, since: string): string {
  const literal = `'${taskQueue.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
  return `TaskQueue = ${literal} AND ExecutionStatus != 'Running' AND CloseTime >= '${since}' AND WorkflowType != '${CATALOG_WORKFLOW_TYPE}' AND WorkflowType != '${WEBHOOK_WORKFLOW_TYPE}'`
}

export class TraceKeeper {
  private readonly inFlight = new Map<string, Promise<void>>()
  private readonly abort = new AbortController()
  private sweeper: NodeJS.Timeout | undefined
  private sweptUntil: number
  private retainedAt = 0
  /** Traces to write again (their upload or attempt read failed), by run id. */
  private readonly retry = new Map<string, string>()

  constructor (private readonly options: TraceKeeperOptions) {
    this.sweptUntil = Date.now() - options.store.settings.lookbackMs
  }

  /**
   * Workflow code of a run finished: write its trace as soon as the run has closed. This worker ran
   * the run's last task, so it builds the trace without first asking the bucket for another
   * host's copy: that one, if any, is the same document (see above), and the question would cost
   * every run a storage call.
   */
  closing (workflowId: string, runId: string): void {
    void this.once(workflowId, runId, async () => {
      if (await this.waitForClose(workflowId, runId)) await this.write(workflowId, runId, false)
    })
  }

  /** Writes the final trace of a closed run (whoever else writes it too); one the bucket holds already is copied. */
  async finalize (workflowId: string, runId: string): Promise<void> {
    await this.once(workflowId, runId, async () => { await this.write(workflowId, runId, true) })
  }

  startSweeping (): void {
    const tick = async () => {
      try {
        await this.sweep()
      } catch (err) {
        if (!this.abort.signal.aborted) this.options.logger.warn(`Trace sweep failed (retried in ${this.options.store.settings.sweepMs} ms): ${(err as Error).message}`)
      }
      await this.applyRetention().catch((err: unknown) => {
        this.options.logger.warn(`Trace: old local files not removed: ${(err as Error).message}`)
      })
      if (!this.abort.signal.aborted) this.sweeper = setTimeout(() => { void tick() }, this.options.store.settings.sweepMs)
    }
    this.sweeper = setTimeout(() => { void tick() }, 0)
  }

  /** Closed runs of the catalog since the last sweep whose trace is not where it belongs yet (store.hasComplete). */
  async sweep (): Promise<number> {
    const started = Date.now()
    const since = new Date(this.sweptUntil - SWEEP_OVERLAP_MS).toISOString()
    const query = sweepQuery(this.options.taskQueue, since)
    let written = 0
    for (const [runId, workflowId] of this.retry) {
      await this.finalize(workflowId, runId)
      written++
    }
    const runs = this.options.client.workflow.list({ query })[Symbol.asyncIterator]()
    for (;;) {
      const next = await this.engine(async () => await runs.next())
      if (next.done === true) break
      const run = next.value
      if (this.abort.signal.aborted) break
      if (await this.options.store.hasComplete(run.workflowId, run.runId)) continue
      await this.finalize(run.workflowId, run.runId)
      written++
    }
    this.sweptUntil = started
    return written
  }

  /** Removes local trace files older than the retention, if it is time to look again. */
  async applyRetention (): Promise<void> {
    const { dir, localRetentionMs } = this.options.store.settings
    if (localRetentionMs === 0 || Date.now() - this.retainedAt < Math.min(localRetentionMs, RETENTION_EVERY_MS)) return
    this.retainedAt = Date.now()
    const removed = await removeLocalFilesOlderThan(dir, Date.now() - localRetentionMs)
    if (removed > 0) this.options.logger.info(`Trace: removed ${removed} local files older than SERVICE_TRACE_LOCAL_RETENTION_MS (${localRetentionMs} ms)`)
  }

  /** Stops sweeping and lets writes in progress finish. */
  async stop (): Promise<void> {
    clearTimeout(this.sweeper)
    this.abort.abort()
    await Promise.allSettled([...this.inFlight.values()])
  }

  /** An engine call that the keeper's stop aborts (a long-poll would otherwise hold a shutdown for 20 s). */
  private async engine<T> (call: () => Promise<T>): Promise<T> {
    return await this.options.client.withAbortSignal(this.abort.signal, call)
  }

  private async once (workflowId: string, runId: string, work: () => Promise<void>): Promise<void> {
    const running = this.inFlight.get(runId)
    if (running !== undefined) return await running
    const job = work().catch((err: unknown) => {
      if (!this.abort.signal.aborted) this.options.logger.warn(`Trace of ${workflowId} run ${runId} not written: ${(err as Error).message}`, { workflowId, runId, error: err })
    }).finally(() => this.inFlight.delete(runId))
    this.inFlight.set(runId, job)
    await job
  }

  private async history (workflowId: string, runId: string) {
    const { client } = this.options
    return await readWholeHistory(async (nextPageToken) => await this.engine(async () => await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace, execution: { workflowId, runId }, skipArchival: true, nextPageToken
    })))
  }

  private async waitForClose (workflowId: string, runId: string): Promise<boolean> {
    const { client } = this.options
    const deadline = Date.now() + CLOSE_WAIT_MS
    let nextPageToken: Uint8Array | undefined
    while (Date.now() < deadline && !this.abort.signal.aborted) {
      const res = await this.engine(async () => await client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        waitNewEvent: true,
        historyEventFilterType: HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
        skipArchival: true,
        nextPageToken
      }))
      if ((res.history?.events?.length ?? 0) > 0) return true
      nextPageToken = res.nextPageToken?.length ? res.nextPageToken : undefined
    }
    return false
  }

  /** `copy`: a run already written elsewhere (another worker host, same bucket) is copied, not rebuilt. */
  private async write (workflowId: string, runId: string, copy: boolean): Promise<void> {
    const { store, attemptWrites, isEvaluator, logger } = this.options
    const stored = copy && store.hasRemote ? await store.readRemote(workflowId, runId).catch(() => null) : null
    let incomplete = false
    const assemble = async () => {
      const events = await this.history(workflowId, runId)
      // A run whose steps all completed at their first attempt has no records to read.
      const attempts = !mayHaveFailedAttempts(events)
        ? []
        // Records this worker has queued are written first (another worker's may still be on their way: docs/traces.md).
        : await attemptWrites.flushed(RECORDS_WAIT_MS).then(async () => await store.readAttempts(workflowId, runId)).catch((err: unknown) => {
          logger.warn(`Trace of ${workflowId} run ${runId}: attempt records unreadable, written without them for now: ${(err as Error).message}`)
          incomplete = true
          return []
        })
      return assembleTrace({ run: { workflowId, runId }, events, attempts, isEvaluator, maxValueBytes: store.settings.maxValueBytes })
    }
    const trace = stored ?? await assemble()
    if (trace.workflow.status === 'running') throw new Error('the run is still open')
    const written = await store.writeTrace(trace, (where, err) => {
      logger.warn(`Trace of ${workflowId} run ${runId}: the ${where} copy could not be written: ${(err as Error).message}`, { workflowId, runId, error: err })
    }, stored === null ? 'both' : 'local')
    const again = incomplete || (stored === null && store.hasRemote && written.remote === null)
    if (again) this.retry.set(runId, workflowId)
    else this.retry.delete(runId)
    if (written.local !== null) await store.setPending(workflowId, runId, again)
  }
}
