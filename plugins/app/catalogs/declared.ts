/**
 * A catalog declared in a file has workers without Flowport's SDK (docs/any-worker.md): what needs
 * Flowport's code on the worker is refused with a reason instead of failing there, or (completion
 * webhooks) run by Flowport's delivery worker instead.
 */
import { DELIVERIES_TASK_QUEUE, type Catalog, type CatalogWorkflow } from '@flowport/core/contract'
import { ApiError } from '../../../lib/api-error.js'

/** A Flowport worker registers each workflow under its name. */
export const workflowTypeOf = (workflow: CatalogWorkflow): string => workflow.workflowType ?? workflow.name

/** Else the entry with that alias: runs a Flowport worker started under an alias. */
export function entryOfType (catalog: Catalog, type: string): CatalogWorkflow | undefined {
  return catalog.workflows.find((w) => workflowTypeOf(w) === type) ?? catalog.workflows.find((w) => w.workflowType === undefined && w.aliases.includes(type))
}

/** Without Flowport's payload codec, the worker could not read a claim-check reference: 413 before anything starts. */
export function assertFitsDeclared (catalog: Catalog, value: unknown, thresholdBytes: number, what: 'input' | 'payload'): void {
  if (catalog.declared !== true || value === undefined) return
  const bytes = Buffer.byteLength(JSON.stringify(value))
  if (bytes <= thresholdBytes) return
  throw new ApiError(413, 'PayloadTooLargeError', `The ${what} has ${bytes} bytes, more than SERVICE_PAYLOAD_REF_THRESHOLD_BYTES (${thresholdBytes}): ` +
    `Flowport would hand it to the engine by reference (claim check), and catalog ${catalog.catalog} is declared in a catalog file for workers ` +
    'without Flowport\'s payload codec, which could not read the reference (docs/any-worker.md)')
}

export const notForDeclared = (catalog: Catalog, feature: string): string =>
  `${feature} need Flowport's worker SDK, and catalog ${catalog.catalog} is declared in a catalog file for workers without it (docs/any-worker.md)`

/**
 * Where a run's completion-webhook delivery runs: on the catalog's task queue, whose Flowport workers
 * run it; a declared catalog's workers do not know it, so Flowport's delivery worker runs it
 * (docs/webhooks.md), and the body names the run as clients do, not by its Temporal type.
 */
export const deliveryOf = (catalog: Catalog, workflow: CatalogWorkflow): { taskQueue: string, workflowName?: string } =>
  catalog.declared === true ? { taskQueue: DELIVERIES_TASK_QUEUE, workflowName: workflow.name } : { taskQueue: catalog.catalog }
