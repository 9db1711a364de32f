/**
 * Write-behind for failed-attempt records (recorder.ts): a failed step's error goes to the engine
 * at once, and its record is written afterwards, one at a time and in order, so that storage that
 * is slow or never answers delays no retry and no outcome. At most `limit` records wait
 * (SERVICE_TRACE_WRITE_QUEUE_MAX, docs/traces.md); a record beyond that, or whose write fails, is
 * dropped: counted in flowport_trace_writes_dropped_total and logged once per episode (a warning at
 * the first drop, a line when a write succeeds again), not once per record.
 */
import type { MetricMeter } from '@temporalio/common'
import { within } from '@flowport/core/bounded'
import type { Logger } from '../common/logger.js'

/** Why a record was not written: the queue was full, its write failed, or shutdown left it behind. */
export type DropReason = 'queue_full' | 'failed' | 'shutdown'

export interface WriteQueueMetrics {
  pending: (count: number) => void
  dropped: (reason: DropReason, count: number) => void
}

/** The queue's metrics through the Temporal runtime's meter (the worker's metrics port: runtime/telemetry.ts). */
export function writeQueueMetrics (meter: MetricMeter): WriteQueueMetrics {
  const pending = meter.createGauge('flowport_trace_writes_pending', 'int', '', 'Failed-attempt records waiting to be written or being written')
  const dropped = meter.createCounter('flowport_trace_writes_dropped', '', 'Failed-attempt records not written, by reason (queue_full, failed, shutdown)')
  return {
    pending: (count) => { pending.set(count) },
    dropped: (reason, count) => { dropped.add(count, { reason }) }
  }
}

export interface WriteQueueOptions {
  /** Most records waiting or being written at once. */
  limit: number
  logger: Logger
  metrics: WriteQueueMetrics | null
}

export class TraceWriteQueue {
  /** The last queued write: writes run one after the other, in the order they were queued. */
  private tail: Promise<void> = Promise.resolve()
  private pending = 0
  /** Records dropped since the last write that succeeded; > 0 while an episode lasts. */
  private droppedInEpisode = 0
  private closed = false

  constructor (private readonly options: WriteQueueOptions) {}

  /** Queues a write and returns at once; `what` names the record in debug lines. */
  push (what: string, write: () => Promise<void>): void {
    if (this.closed) return this.drop('shutdown', what, 'the worker is stopping')
    if (this.pending >= this.options.limit) return this.drop('queue_full', what, `the queue holds its limit of ${this.options.limit}`)
    this.setPending(this.pending + 1)
    this.tail = this.tail.then(async () => {
      if (this.closed) return this.drop('shutdown', what, 'the worker stopped before it was written')
      try {
        await write()
        this.written()
      } catch (err) {
        this.drop('failed', what, (err as Error).message)
      }
    }).finally(() => { this.setPending(this.pending - 1) })
  }

  /** Waits until the writes queued so far are done (written or dropped), at most `timeoutMs`; true if they are. */
  async flushed (timeoutMs: number): Promise<boolean> {
    return await within(this.tail.then(() => true), timeoutMs, false)
  }

  /**
   * Graceful shutdown: lets the queue drain for at most `deadlineMs`, then drops what is left (a
   * write still in progress ends with the store's own timeout). Later pushes are dropped.
   */
  async close (deadlineMs: number): Promise<void> {
    const waiting = this.pending
    const drained = await this.flushed(deadlineMs)
    this.closed = true
    if (!drained) this.options.logger.warn(`Trace: ${this.pending} of ${waiting} attempt records not written within ${deadlineMs} ms of shutdown; dropped`)
  }

  private setPending (count: number): void {
    this.pending = count
    this.options.metrics?.pending(count)
  }

  private written (): void {
    if (this.droppedInEpisode === 0) return
    this.options.logger.info(`Trace: attempt records are written again; ${this.droppedInEpisode} dropped meanwhile`)
    this.droppedInEpisode = 0
  }

  private drop (reason: DropReason, what: string, why: string): void {
    this.options.metrics?.dropped(reason, 1)
    this.options.logger.debug(`Trace: ${what} not recorded (${reason}): ${why}`)
    // Shutdown drops are reported once by close().
    if (reason === 'shutdown') return
    if (this.droppedInEpisode++ === 0) {
      this.options.logger.warn(`Trace: attempt records are being dropped (${reason}: ${why}); counted in flowport_trace_writes_dropped_total, logged again once a write succeeds`)
    }
  }
}
