/**
 * The runs service: finding a run and reading what it is (status, result, input, trace, the
 * listing), and the history reads other concepts build on (a run's start input, its close event,
 * waiting for it). It owns the two caches of what reads learnt: closed runs' final facts
 * (./closed-runs.ts) and which ids have long histories (./long-histories.ts).
 */
import type { WorkflowInput, WorkflowResult, WorkflowStatus, RunsQuery } from '../../../schemas/workflow.js'
import type { TraceLog } from '../../../schemas/trace.js'
import type { Attention } from '../../../schemas/reset.js'
import type { Config } from '../../../schemas/config.js'
import { ClosedRuns } from './closed-runs.js'
import { LongHistories } from './long-histories.js'
import { describeForRead, describeRun, readStatus, statusWithWorkers, type DescribeOptions, type Execution } from './execution.js'
import { readAttention } from './attention.js'
import { listRuns } from './list-runs.js'
import { readInput } from './run-input.js'
import { readResult, resultOf, outcomeOf, type Outcome, type ReadResult } from './workflow-result.js'
import { readTraceLog, type ReadTraceLog } from './trace-log.js'
import { readCloseEventIfClosed, readRunInput, waitForCloseEvent, type CloseWait, type RunRef, type timedOut } from './run-history.js'
import type { HistoryEvent } from './close-events.js'
import type { RunsContext } from './deps.js'

export interface Runs {
  readonly closedRuns: ClosedRuns
  readonly longHistories: LongHistories
  /** The latest or a pinned run, from the engine (404 for an unknown or internal one). */
  describeRun: (options: DescribeOptions) => Promise<Execution>
  /** `describeRun` answered from the closed-run cache when it can. */
  describeForRead: (options: DescribeOptions) => Promise<Execution>
  readStatus: (options: DescribeOptions) => Promise<WorkflowStatus>
  statusWithWorkers: (execution: Execution, signal?: AbortSignal) => Promise<WorkflowStatus>
  readResult: (options: ReadResult) => Promise<WorkflowResult>
  readInput: (options: DescribeOptions) => Promise<WorkflowInput>
  listRuns: (q: RunsQuery, signal?: AbortSignal) => Promise<{ runs: WorkflowStatus[], nextPageToken: string | null }>
  readTraceLog: (options: ReadTraceLog) => Promise<TraceLog>
  readAttention: (run: RunRef, attempt: number | null | undefined, signal?: AbortSignal) => Promise<Attention | null>
  readRunInput: (run: RunRef, signal?: AbortSignal) => Promise<unknown>
  readCloseEventIfClosed: (run: RunRef, signal?: AbortSignal) => Promise<HistoryEvent | null>
  waitForCloseEvent: (run: RunRef, wait: CloseWait) => Promise<HistoryEvent | typeof timedOut>
  outcomeOf: (event: HistoryEvent) => Promise<Outcome>
  resultOf: (run: RunRef, input: unknown, closeEvent: HistoryEvent) => Promise<WorkflowResult>
  close: () => void
}

export type RunsDeps = Omit<RunsContext, 'closedRuns' | 'longHistories'> & {
  config: Pick<Config, 'SERVICE_CLOSED_RUN_CACHE_ENTRIES' | 'SERVICE_CLOSED_RUN_CACHE_BYTES' | 'SERVICE_CLOSED_RUN_CACHE_TTL_MS'>
}

export function createRuns ({ config, ...deps }: RunsDeps): Runs {
  const ctx: RunsContext = {
    ...deps,
    // The answers of the read endpoints for runs that can no longer change, bounded by the SERVICE_CLOSED_RUN_CACHE_* settings.
    closedRuns: new ClosedRuns({
      maxEntries: config.SERVICE_CLOSED_RUN_CACHE_ENTRIES,
      maxBytes: config.SERVICE_CLOSED_RUN_CACHE_BYTES,
      ttlMs: config.SERVICE_CLOSED_RUN_CACHE_TTL_MS
    }),
    // Which workflow ids' latest-run reads start with a describe rather than the first page of their history.
    longHistories: new LongHistories()
  }
  return {
    closedRuns: ctx.closedRuns,
    longHistories: ctx.longHistories,
    describeRun: async (options) => await describeRun(ctx, options),
    describeForRead: async (options) => await describeForRead(ctx, options),
    readStatus: async (options) => await readStatus(ctx, options),
    statusWithWorkers: async (execution, signal) => await statusWithWorkers(ctx, execution, signal),
    readResult: async (options) => await readResult(ctx, options),
    readInput: async (options) => await readInput(ctx, options),
    listRuns: async (q, signal) => await listRuns(ctx, q, signal),
    readTraceLog: async (options) => await readTraceLog(ctx, options),
    readAttention: async (run, attempt, signal) => await readAttention(ctx, run, attempt, signal),
    readRunInput: async (run, signal) => await readRunInput(ctx, run, signal),
    readCloseEventIfClosed: async (run, signal) => await readCloseEventIfClosed(ctx, run, signal),
    waitForCloseEvent: async (run, wait) => await waitForCloseEvent(ctx, run, wait),
    outcomeOf: async (event) => await outcomeOf(ctx, event),
    resultOf: async (run, input, closeEvent) => await resultOf(ctx, run, input, closeEvent),
    close () {
      ctx.closedRuns.clear()
      ctx.longHistories.clear()
    }
  }
}
