/**
 * The worker's trace keeper: writes the final trace of every run of its catalog once the run has
 * closed, however it closed: told by workflow code through a sink, or found by a sweep of the
 * closed runs; traces that failed are written again (docs/traces.md, "When it is written"). The
 * document is a pure function of the closed run's history and the recorded attempts, so two
 * workers that write the same run write the same bytes.
 */
import type { Client } from '@temporalio/client'
import protoRoot from '@temporalio/proto'
import { CATALOG_WORKFLOW_TYPE, WEBHOOK_WORKFLOW_TYPE } from '@flowport/core/contract'
import { EVAL_CHECK_WORKFLOW_TYPE } from '@flowport/core/eval'
import type { Logger } from '../common/logger.js'
import { assembleTrace, mayHaveFailedAttempts, readWholeHistory, type TraceStore } from '@flowport/core/trace'
import { removeLocalFilesOlderThan } from './local-retention.js'
import type { TraceWriteQueue } from './write-queue.js'
import type { FlowportSinks } from '../workflow/runtime.js'

const { HistoryEventFilterType } = protoRoot.temporal.api.enums.v1

/** The sink workflow code calls when it finishes (see worker/src/workflow/runtime.ts). */
export const TRACE_SINK = 'flowportTrace' satisfies keyof FlowportSinks

/** How long the keeper waits for a close event after workflow code said it finished; the sweep covers longer. */
const CLOSE_WAIT_MS = 60_000
/** Visibility is eventually consistent: each sweep looks this far behind the previous one. */
const SWEEP_OVERLAP_MS = 30_000
/** How long a trace waits for this worker's queued attempt records; a store that hangs must not stall the keeper. */
const RECORDS_WAIT_MS = 10_000
/** Local retention is applied at most this often (and at least once per retention period). */
const RETENTION_EVERY_MS = 3_600_000
/** Traces waiting to be written again, at most (a bucket failing for hours must not grow the set without bound). */
const MAX_REWRITES = 1000
/** Rewrites tried per sweep, at most; a failure ends the pass. */
const REWRITES_PER_SWEEP = 100
/** Longest wait between passes of rewrites while the bucket keeps failing (the wait doubles from SERVICE_TRACE_SWEEP_MS). */
const MAX_REWRITE_BACKOFF_MS = 300_000

export interface TraceKeeperOptions {
  client: Client
  taskQueue: string
  store: TraceStore
  /** This worker's queue of failed-attempt records (recorder.ts), waited for before a trace is assembled. */
  attemptWrites: TraceWriteQueue
  isEvaluator: (activityType: string) => boolean
  logger: Logger
  /** Traces kept waiting to be written again, at most (default MAX_REWRITES). */
  maxRewrites?: number
}

/** Why a trace is written again: its bucket copy failed (the local copy is whole), or its attempt records could not be read. */
type RewriteReason = 'upload' | 'attempts'

/**
 * The sweep's visibility query: the closed runs of a catalog since an instant. The catalog id is
 * a string literal: a backslash in it is escaped before the quotes, or `a\` would end as `'a\'`,
 * an unterminated literal the engine refuses.
 */
export function sweepQuery (taskQueue: string, since: string): string {
  const literal = `'${taskQueue.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
  return `TaskQueue = ${literal} AND ExecutionStatus != 'Running' AND CloseTime >= '${since}' AND WorkflowType != '${CATALOG_WORKFLOW_TYPE}' AND WorkflowType != '${WEBHOOK_WORKFLOW_TYPE}' AND WorkflowType != '${EVAL_CHECK_WORKFLOW_TYPE}'`
}

export class TraceKeeper {
  private readonly inFlight = new Map<string, Promise<void>>()
  private readonly abort = new AbortController()
  private sweeper: NodeJS.Timeout | undefined
  private sweptUntil: number
  private retainedAt = 0
  /** Traces to write again (their upload or attempt read failed), by run id, oldest first; at most `maxRewrites`. */
  private readonly retry = new Map<string, { workflowId: string, reason: RewriteReason }>()
  /** No pass of rewrites before this instant (ms): the bucket failed the last one. */
  private retryAt = 0
  private retryBackoffMs = 0
  /** The set was full when a trace failed; said once per episode. */
  private retryFullLogged = false

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
    let written = await this.rewrite()
    const runs = this.options.client.workflow.list({ query })[Symbol.asyncIterator]()
    for (;;) {
      const next = await this.engine(async () => await runs.next())
      if (next.done === true) break
      const run = next.value
      if (this.abort.signal.aborted) break
      // A trace waiting to be written again is the rewrites' to retry, with their backoff; one
      // marked pending while their set is full waits for a restart's sweep (its local copy is written).
      if (this.retry.has(run.runId)) continue
      if (this.rewritesFull && await this.options.store.isPending(run.workflowId, run.runId)) continue
      if (await this.options.store.hasComplete(run.workflowId, run.runId)) continue
      await this.finalize(run.workflowId, run.runId)
      written++
    }
    this.sweptUntil = started
    return written
  }

  /** Traces waiting to be written again. */
  get rewrites (): number { return this.retry.size }

  /**
   * One pass over the traces to write again, oldest first, while the bucket takes them: the first
   * that fails again ends the pass and the next waits twice as long as the last (from
   * SERVICE_TRACE_SWEEP_MS up to 5 min), so a bucket that refuses every write (403, expired
   * credentials) costs one try per wait, not a rewrite of every trace every sweep.
   */
  private async rewrite (): Promise<number> {
    if (this.retry.size === 0 || Date.now() < this.retryAt) return 0
    let written = 0
    for (const [runId, { workflowId }] of [...this.retry].slice(0, REWRITES_PER_SWEEP)) {
      if (this.abort.signal.aborted) break
      await this.finalize(workflowId, runId)
      if (this.retry.has(runId)) {
        this.retryBackoffMs = Math.min(Math.max(this.retryBackoffMs * 2, this.options.store.settings.sweepMs), MAX_REWRITE_BACKOFF_MS)
        this.retryAt = Date.now() + this.retryBackoffMs
        // To the back: a trace that cannot be written does not stand in front of the others for ever.
        const entry = this.retry.get(runId)!
        this.retry.delete(runId)
        this.retry.set(runId, entry)
        break
      }
      written++
    }
    if (written > 0 && this.retryAt <= Date.now()) this.retryBackoffMs = 0
    return written
  }

  private get rewritesFull (): boolean { return this.retry.size >= (this.options.maxRewrites ?? MAX_REWRITES) }

  /** Keeps a trace to write again, unless the set is full: its local pending marker stays, for the lookback sweep after a restart. */
  private rewriteLater (workflowId: string, runId: string, reason: RewriteReason): void {
    if (!this.retry.has(runId) && this.rewritesFull) {
      if (!this.retryFullLogged) this.options.logger.warn(`Trace: ${this.retry.size} traces wait to be written again; more are left marked pending in the local directory until a restart's sweep (SERVICE_TRACE_LOOKBACK_MS)`)
      this.retryFullLogged = true
      return
    }
    this.retry.set(runId, { workflowId, reason })
    // A trace that just failed is not tried again before the next sweep's turn.
    if (this.retryAt <= Date.now()) this.retryAt = Date.now() + Math.max(this.retryBackoffMs, this.options.store.settings.sweepMs)
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
    // An upload to redo sends the local copy, whole: the run's history is not read again.
    if (this.retry.get(runId)?.reason === 'upload') {
      const local = await store.readLocal(workflowId, runId).catch(() => null)
      if (local !== null) {
        const written = await store.writeTrace(local, this.copyFailed(workflowId, runId), 'remote')
        if (written.remote === null) return
        this.rewritten(runId)
        await store.setPending(workflowId, runId, false)
        return
      }
    }
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
    const written = await store.writeTrace(trace, this.copyFailed(workflowId, runId), stored === null ? 'both' : 'local')
    const again = incomplete || (stored === null && store.hasRemote && written.remote === null)
    if (again) this.rewriteLater(workflowId, runId, incomplete || written.local === null ? 'attempts' : 'upload')
    else this.rewritten(runId)
    if (written.local !== null) await store.setPending(workflowId, runId, again)
  }

  private copyFailed (workflowId: string, runId: string) {
    return (where: string, err: unknown) => {
      this.options.logger.warn(`Trace of ${workflowId} run ${runId}: the ${where} copy could not be written: ${(err as Error).message}`, { workflowId, runId, error: err })
    }
  }

  /** The trace is where it belongs: no longer one to write again. */
  private rewritten (runId: string): void {
    this.retry.delete(runId)
    this.retryFullLogged = false
  }
}
