/**
 * What the read endpoints answer about runs that can no longer change, kept by run id so a
 * repeated read costs no engine call (docs/performance.md, "Read path and memory").
 *
 * Only facts that are final are kept, which is why any number of API replicas can each keep
 * their own copy: nothing here can become wrong, only be missing.
 * - `execution`: the describe of a closed run (status, times, history length, type, task queue,
 *   parent, worker deployment version, and the run its reset made, `resetTo`). Nothing is appended to a closed run's history;
 *   a reset or a continue-as-new makes a new run with a new id. A reset through this API drops the
 *   reset run's entry (`forget`); other replicas answer a stale `resetTo: null` until their entry
 *   expires. What else changes after close (search attributes, the current run of the workflow
 *   id) is not kept: the unpinned routes still ask the engine for the current run every time.
 * - `input` and `workflowName`: the run's start input and workflow type, from its first history
 *   event, which never changes (also while the run is open).
 * - `outcome`: what the close event records.
 * - `trace`: the stored trace, once the worker wrote it to the destination the API prefers.
 *
 * The engine deletes a closed run after the namespace's retention period (or on request);
 * `ttlMs` bounds how long a pinned read can still answer for a run deleted meanwhile.
 */
import { LRUCache } from 'lru-cache'
import type { TraceLog } from '../../../schemas/trace.js'
import type { Execution, Outcome } from './types.js'

export interface ClosedRun {
  workflowId: string
  execution?: Execution
  /** Present once read; `null` is a run started without input. */
  input?: unknown
  /** The workflow type the run was started as; kept with `input`. */
  workflowName?: string
  outcome?: Outcome
  trace?: TraceLog
}

export interface ClosedRunsOptions {
  /** Most runs kept; 0 switches the cache off. */
  maxEntries: number
  /** Bound of the approximate size of everything kept (JSON bytes of the values). */
  maxBytes: number
  /** Longest time a run is kept after it was last stored. */
  ttlMs: number
}

/** Per-entry overhead on top of its values' JSON: keys, the LRU's bookkeeping, the objects themselves. */
const ENTRY_OVERHEAD_BYTES = 512

/** The JSON size of what an entry holds, a fair stand-in for what it costs in memory. */
function sizeOf (run: ClosedRun): number {
  let bytes = ENTRY_OVERHEAD_BYTES
  for (const value of [run.execution, run.input, run.outcome, run.trace]) {
    if (value !== undefined) bytes += Buffer.byteLength(JSON.stringify(value) ?? '')
  }
  return bytes
}

export class ClosedRuns {
  /** Absent when the cache is switched off (`maxEntries` 0). */
  readonly #runs: LRUCache<string, ClosedRun> | undefined

  constructor (readonly options: ClosedRunsOptions) {
    if (options.maxEntries === 0) return
    this.#runs = new LRUCache<string, ClosedRun>({
      max: options.maxEntries,
      maxSize: options.maxBytes,
      // One huge result must not flush everything else out.
      maxEntrySize: Math.max(1, Math.floor(options.maxBytes / 4)),
      sizeCalculation: sizeOf,
      ttl: options.ttlMs,
      // A read does not extend the bound on how long a deleted run can still be answered.
      updateAgeOnGet: false
    })
  }

  get size (): number { return this.#runs?.size ?? 0 }
  get bytes (): number { return this.#runs?.calculatedSize ?? 0 }

  /** What is kept of run `runId`, only if it is a run of `workflowId` (run ids are never trusted alone). */
  get (workflowId: string, runId: string): ClosedRun | undefined {
    const run = this.#runs?.get(runId)
    return run?.workflowId === workflowId ? run : undefined
  }

  /** Adds facts about a run; callers pass only facts that can no longer change. */
  remember (workflowId: string, runId: string, facts: Omit<ClosedRun, 'workflowId'>): void {
    if (this.#runs === undefined) return
    const known = this.get(workflowId, runId)
    // Facts never change, so what is kept already is not stored (and sized) again.
    if (known && Object.keys(facts).every((key) => known[key as keyof ClosedRun] !== undefined)) return
    this.#runs.set(runId, { ...known, ...facts, workflowId })
  }

  /**
   * Drops a run whose kept describe went stale: a reset of a closed run changes its describe (it
   * names the new run). Other replicas learn of it when their entry expires (`ttlMs`).
   */
  forget (workflowId: string, runId: string): void {
    if (this.get(workflowId, runId) !== undefined) this.#runs?.delete(runId)
  }

  clear (): void {
    this.#runs?.clear()
  }
}
