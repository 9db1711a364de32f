/**
 * Final facts about closed runs, so a repeated read costs no engine call (docs/performance.md):
 * nothing kept can become wrong, only be missing, so every replica keeps its own. Except `resetTo`:
 * a reset names the new run in the old one's describe; this replica `forget`s it, others answer
 * `resetTo: null` until `ttlMs`, which also bounds answers for a run the engine deleted.
 */
import { LRUCache } from 'lru-cache'
import type { TraceLog } from '../../../schemas/trace.js'
import type { Execution, Outcome } from './types.js'

export interface ClosedRun {
  workflowId: string
  execution?: Execution
  /** Present once read; `null` is a run started without input. */
  input?: unknown
  workflowName?: string
  /** With `workflowName`, read from the same start. */
  taskQueue?: string
  outcome?: Outcome
  trace?: TraceLog
}

export interface ClosedRunsOptions {
  /** Most runs kept; 0 switches the cache off. */
  maxEntries: number
  /** Approximate: JSON bytes of the values. */
  maxBytes: number
  /** Since it was last stored. */
  ttlMs: number
}

/** Per-entry overhead on top of its values' JSON (keys, the LRU's bookkeeping). */
const ENTRY_OVERHEAD_BYTES = 512

function sizeOf (run: ClosedRun): number {
  let bytes = ENTRY_OVERHEAD_BYTES
  for (const value of [run.execution, run.input, run.outcome, run.trace]) {
    if (value !== undefined) bytes += Buffer.byteLength(JSON.stringify(value) ?? '')
  }
  return bytes
}

export class ClosedRuns {
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

  /** Run ids are never trusted alone: the run must be one of `workflowId`. */
  get (workflowId: string, runId: string): ClosedRun | undefined {
    const run = this.#runs?.get(runId)
    return run?.workflowId === workflowId ? run : undefined
  }

  remember (workflowId: string, runId: string, facts: Omit<ClosedRun, 'workflowId'>): void {
    if (this.#runs === undefined) return
    const known = this.get(workflowId, runId)
    // Facts never change, so what is kept already is not stored (and sized) again.
    if (known && Object.keys(facts).every((key) => known[key as keyof ClosedRun] !== undefined)) return
    this.#runs.set(runId, { ...known, ...facts, workflowId })
  }

  /** A reset of a closed run changes its describe (it names the new run); other replicas wait for `ttlMs`. */
  forget (workflowId: string, runId: string): void {
    if (this.get(workflowId, runId) !== undefined) this.#runs?.delete(runId)
  }

  clear (): void {
    this.#runs?.clear()
  }
}
