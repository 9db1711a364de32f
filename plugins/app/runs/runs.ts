/**
 * The runs service: finding a run and reading what it is (status, result, input, trace, the
 * listing), and the history reads other concepts build on (a run's start input, its close event,
 * waiting for it). It owns the caches of what reads learnt: closed runs' final facts
 * (./closed-runs.ts) and which ids have long histories (./long-histories.ts).
 */
import { ClosedRuns } from './closed-runs.js'
import { LongHistories } from './long-histories.js'
import { describeRun, readStatus, statusWithWorkers } from './execution.js'
import { readAttention } from './attention.js'
import { listRuns } from './list-runs.js'
import { readInput } from './run-input.js'
import { readResult, resultOf, outcomeOf } from './workflow-result.js'
import { readTraceLog } from './trace-log.js'
import { readCloseEventIfClosed, readRunStart, waitForCloseEvent } from '../engine/index.js'
import type { RunsContext, RunsDeps } from './deps.js'
import { bindParts } from '../../../lib/bind-parts.js'

export type Runs = ReturnType<typeof createRuns>

export function createRuns ({ config, ...deps }: RunsDeps) {
  const closedRuns = new ClosedRuns({
    maxEntries: config.SERVICE_CLOSED_RUN_CACHE_ENTRIES,
    maxBytes: config.SERVICE_CLOSED_RUN_CACHE_BYTES,
    ttlMs: config.SERVICE_CLOSED_RUN_CACHE_TTL_MS
  })
  const longHistories = new LongHistories()
  const ctx: RunsContext = { ...deps, closedRuns, longHistories }
  return {
    closedRuns,
    // What routes read of a run, then the history reads other concepts build on.
    ...bindParts(ctx, { describeRun, readStatus, statusWithWorkers, readResult, readInput, listRuns, readTraceLog, readAttention }),
    ...bindParts(ctx, { readRunStart, readCloseEventIfClosed, waitForCloseEvent, outcomeOf, resultOf }),
    close () {
      closedRuns.clear()
      longHistories.clear()
    }
  }
}
