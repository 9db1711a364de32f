/**
 * Whether a Flowport worker writes the traces of a catalog's runs (and records the failed
 * attempts the engine forgets), told by the catalog of the run's task queue: a catalog published
 * by Flowport's workers says so; a catalog declared in a file (workers of another SDK) and a task
 * queue nobody published (a plain Temporal worker) have none. The trace of such a run is its
 * history alone (docs/any-worker.md).
 */
import type { Catalog } from '@flowport/core/contract'
import { evaluatorTypes } from '@flowport/core/trace'
import type { RunsContext } from './deps.js'

export type TraceWriter =
  /** Flowport's workers: their evaluators, to tell them from steps (empty when the catalog could not be read). */
  | { kind: 'flowport', evaluators: Set<string> }
  /** Nobody writes the trace or records attempts: it is built from the history alone. */
  | { kind: 'none' }

/** Published by Flowport's workers, not declared in a catalog file (`flowport catalog publish`). */
const byFlowportWorkers = (catalog: Catalog) => catalog.declared !== true

export async function traceWriterOf ({ catalogs }: Pick<RunsContext, 'catalogs'>, catalogId: string, signal?: AbortSignal): Promise<TraceWriter> {
  try {
    // Null: never published.
    const catalog = await catalogs.ofQueue(catalogId, signal)
    return catalog !== null && byFlowportWorkers(catalog) ? { kind: 'flowport', evaluators: evaluatorTypes(catalog) } : { kind: 'none' }
  } catch {
    // Any other answer (the engine is away, the catalog is being replaced) says nothing about the
    // worker: read it as Flowport's, as the trace was read before.
    signal?.throwIfAborted()
    return { kind: 'flowport', evaluators: new Set() }
  }
}
