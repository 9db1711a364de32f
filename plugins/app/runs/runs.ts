/**
 * The runs service: finding a run and reading what it is (status, result, input, trace, the
 * listing), and the history reads other concepts build on (a run's start input, its close event,
 * waiting for it). It owns the caches of what reads learnt: closed runs' final facts
 * (./closed-runs.ts) and which ids have long histories (./long-histories.ts).
 * Built like every service, a `createX(deps)` factory returning an object: the functions of the
 * folder take what they need of the dependencies first, and the factory binds it.
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
    describeRun: describeRun.bind(undefined, ctx),
    readStatus: readStatus.bind(undefined, ctx),
    statusWithWorkers: statusWithWorkers.bind(undefined, ctx),
    readResult: readResult.bind(undefined, ctx),
    readInput: readInput.bind(undefined, ctx),
    listRuns: listRuns.bind(undefined, ctx),
    readTraceLog: readTraceLog.bind(undefined, ctx),
    readAttention: readAttention.bind(undefined, ctx),
    readRunStart: readRunStart.bind(undefined, ctx),
    readCloseEventIfClosed: readCloseEventIfClosed.bind(undefined, ctx),
    waitForCloseEvent: waitForCloseEvent.bind(undefined, ctx),
    outcomeOf: outcomeOf.bind(undefined, ctx),
    resultOf: resultOf.bind(undefined, ctx),
    close () {
      closedRuns.clear()
      longHistories.clear()
    }
  }
}
