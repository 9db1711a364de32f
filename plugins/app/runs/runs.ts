import type { RunRef } from '@flowport/core/run'
import { ClosedRuns } from './closed-runs.js'
import { LongHistories } from './long-histories.js'
import { executionReads } from './execution.js'
import { readAttention } from './attention.js'
import { listReads } from './list-runs.js'
import { inputReads } from './run-input.js'
import { resultReads } from './workflow-result.js'
import { traceLogReads } from './trace-log.js'
import { readCloseEventIfClosed, readRunStart, waitForCloseEvent, type CloseWait } from '../engine/index.js'
import type { RunsContext, RunsDeps } from './deps.js'

export type Runs = ReturnType<typeof createRuns>

export function createRuns ({ config, ...deps }: RunsDeps) {
  const closedRuns = new ClosedRuns({
    maxEntries: config.SERVICE_CLOSED_RUN_CACHE_ENTRIES,
    maxBytes: config.SERVICE_CLOSED_RUN_CACHE_BYTES,
    ttlMs: config.SERVICE_CLOSED_RUN_CACHE_TTL_MS
  })
  const longHistories = new LongHistories()
  const ctx: RunsContext = { ...deps, closedRuns, longHistories }
  const executions = executionReads(ctx)
  const reads = { ...ctx, ...executions }
  return {
    ...executions,
    ...listReads(reads),
    ...inputReads(reads),
    ...resultReads(reads),
    ...traceLogReads(reads),
    closedRuns,
    readAttention: async (run: RunRef, execution: Parameters<typeof readAttention>[2], signal?: AbortSignal) => await readAttention(ctx, run, execution, signal),
    readRunStart: async (run: RunRef, signal?: AbortSignal) => await readRunStart(ctx, run, signal),
    readCloseEventIfClosed: async (run: RunRef, signal?: AbortSignal) => await readCloseEventIfClosed(ctx, run, signal),
    waitForCloseEvent: async (run: RunRef, wait: CloseWait) => await waitForCloseEvent(ctx, run, wait),
    close () {
      closedRuns.clear()
      longHistories.clear()
    }
  }
}
