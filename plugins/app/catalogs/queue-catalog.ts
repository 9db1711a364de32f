/**
 * What a run's task queue says about the run, for read paths: the name clients use for its
 * workflow type (a declared workflow's `name`, not its `workflowType`) and whether Flowport's
 * worker runs it. The catalog read is cached as catalogs.get caches it; a queue nobody published a
 * catalog for is remembered as such as long, so a page of plain runs costs one read per queue, not
 * one per run.
 */
import type { Catalog, CatalogWorkflow } from '@flowport/core/contract'
import { untilAborted } from '../../../lib/abort.js'
import { ifNotFound } from '../../../lib/api-error.js'
import { entryOfType, workflowTypeOf } from './declared.js'

const NONE_FOR_MS = 2000

export type QueueCatalogs = ReturnType<typeof createQueueCatalogs>

export function createQueueCatalogs (get: (catalogId: string, signal?: AbortSignal) => Promise<Catalog>) {
  const none = new Map<string, { at: number, read: Promise<Catalog | null> }>()

  /** The catalog published for `taskQueue`; null when none ever was (404). Other failures are thrown. */
  async function ofQueue (taskQueue: string, signal?: AbortSignal): Promise<Catalog | null> {
    const known = none.get(taskQueue)
    if (known !== undefined && Date.now() - known.at < NONE_FOR_MS) return await untilAborted(known.read, signal)
    const read = get(taskQueue).catch(ifNotFound(null))
    // Shared while in flight, kept only when it found no catalog (catalogs.get keeps the others).
    none.set(taskQueue, { at: Date.now(), read })
    read.then((catalog) => { if (catalog !== null && none.get(taskQueue)?.read === read) none.delete(taskQueue) },
      () => { if (none.get(taskQueue)?.read === read) none.delete(taskQueue) })
    return await untilAborted(read, signal)
  }

  /** `workflowType` as clients name it: a declared catalog's entry of that type; else the type itself (a Flowport worker registers each workflow under its name). */
  async function clientName (taskQueue: string, workflowType: string, signal?: AbortSignal): Promise<string> {
    // The engine away or the catalog being replaced: the type, as before, rather than no answer.
    const catalog = await ofQueue(taskQueue, signal).catch(() => { signal?.throwIfAborted(); return null })
    return catalog?.declared === true ? entryOfType(catalog, workflowType)?.name ?? workflowType : workflowType
  }

  /** The declared entry the filters name (by Temporal type, name or alias, in their `catalog`); undefined when they name none. */
  async function declaredEntry ({ workflowName, catalog }: { workflowName?: string, catalog?: string }, signal?: AbortSignal): Promise<CatalogWorkflow | undefined> {
    if (workflowName === undefined || catalog === undefined) return undefined
    const declared = await ofQueue(catalog, signal).catch(() => { signal?.throwIfAborted(); return null })
    if (declared?.declared !== true) return undefined
    return entryOfType(declared, workflowName) ?? declared.workflows.find((w) => w.name === workflowName || w.aliases.includes(workflowName))
  }

  /**
   * The run filters with `workflowName` as the engine matches it: in a declared `catalog`, the
   * Temporal type of the entry of that name or alias; else as given (without a catalog, the type).
   */
  async function typeFiltered<F extends { workflowName?: string, catalog?: string }> (filters: F, signal?: AbortSignal): Promise<F> {
    const entry = await declaredEntry(filters, signal)
    return entry === undefined ? filters : { ...filters, workflowName: workflowTypeOf(entry) }
  }

  /** A signal's name as the worker knows it when the filters name one declared workflow; else as given (the runs may be of several). */
  async function signalNameFor (filters: { workflowName?: string, catalog?: string }, name: string, signal?: AbortSignal): Promise<string> {
    return (await declaredEntry(filters, signal))?.signals.find((h) => h.name === name)?.handlerName ?? name
  }

  return { ofQueue, clientName, typeFiltered, signalNameFor }
}
