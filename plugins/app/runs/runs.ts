/**
 * The runs service: finding a run and reading what it is (status, result, input, trace, the
 * listing), and the history reads other concepts build on (a run's start input, its close event,
 * waiting for it). It owns the caches of what reads learnt: closed runs' final facts
 * (./closed-runs.ts) and which ids have long histories (./long-histories.ts).
 */
import type { TraceStore } from '@flowport/core/trace'
import type { WebhookRunMemo } from '@flowport/core/contract'
import type { Config } from '../../../schemas/config.js'
import type { WebhookDelivery } from '../../../schemas/workflow.js'
import type { Engine } from '../engine/engine.js'
import type { Catalogs } from '../catalogs/catalogs.js'
import type { Payloads } from '../payloads/payloads.js'
import { ClosedRuns } from './closed-runs.js'
import { LongHistories } from './long-histories.js'
import { describeRun, readStatus, statusWithWorkers } from './execution.js'
import { readAttention } from './attention.js'
import { listRuns } from './list-runs.js'
import { readInput } from './run-input.js'
import { readResult, resultOf, outcomeOf } from './workflow-result.js'
import { readTraceLog } from './trace-log.js'
import { readCloseEventIfClosed, readRunInput, waitForCloseEvent, type RunRef } from './run-history.js'

export interface RunsDeps {
  engine: Engine
  catalogs: Pick<Catalogs, 'get' | 'workersPolling'>
  /** Large values (docs/large-payloads.md): a payload list's first value (a LargeValue when held by reference), and a value inline or as its download. */
  payloads: Pick<Payloads, 'decodeFirstValue' | 'inlineOrLink'>
  /** The trace destinations workers write (docs/traces.md); null when tracing is off. */
  traces: TraceStore | null
  /** Where the delivery of a run's completion webhook stands (docs/webhooks.md); `memo` is the run's. */
  deliveryOf: (run: RunRef, memo: WebhookRunMemo, signal?: AbortSignal) => Promise<WebhookDelivery>
  config: Pick<Config, 'SERVICE_CLOSED_RUN_CACHE_ENTRIES' | 'SERVICE_CLOSED_RUN_CACHE_BYTES' | 'SERVICE_CLOSED_RUN_CACHE_TTL_MS'>
}

/** What the parts are given: the service's dependencies and its two caches. */
export type RunsContext = Omit<RunsDeps, 'config'> & { closedRuns: ClosedRuns, longHistories: LongHistories }

export type Runs = ReturnType<typeof createRuns>

export function createRuns ({ config, ...deps }: RunsDeps) {
  const closedRuns = new ClosedRuns({
    maxEntries: config.SERVICE_CLOSED_RUN_CACHE_ENTRIES,
    maxBytes: config.SERVICE_CLOSED_RUN_CACHE_BYTES,
    ttlMs: config.SERVICE_CLOSED_RUN_CACHE_TTL_MS
  })
  const longHistories = new LongHistories()
  const ctx: RunsContext = { ...deps, closedRuns, longHistories }
  // Each method is a part of the concept with the service's dependencies given.
  return {
    closedRuns,
    describeRun: describeRun.bind(undefined, ctx),
    readStatus: readStatus.bind(undefined, ctx),
    statusWithWorkers: statusWithWorkers.bind(undefined, ctx),
    readResult: readResult.bind(undefined, ctx),
    readInput: readInput.bind(undefined, ctx),
    listRuns: listRuns.bind(undefined, ctx),
    readTraceLog: readTraceLog.bind(undefined, ctx),
    readAttention: readAttention.bind(undefined, ctx),
    readRunInput: readRunInput.bind(undefined, ctx),
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
