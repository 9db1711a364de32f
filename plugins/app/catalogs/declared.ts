/**
 * What differs for a catalog declared in a file (`flowport catalog publish`, docs/any-worker.md),
 * whose workers run without Flowport's SDK: a workflow's Temporal type may differ from the name
 * clients use, and what needs Flowport's code on the worker (the claim-check codec, evals) is
 * refused with a reason instead of failing on the worker.
 */
import type { Catalog, CatalogWorkflow } from '@flowport/core/contract'
import { ApiError, validationError } from '../../../lib/api-error.js'

/** The Temporal workflow type a start of `workflow` uses (a Flowport worker registers each workflow under its name). */
export const workflowTypeOf = (workflow: CatalogWorkflow): string => workflow.workflowType ?? workflow.name

/**
 * The catalog's entry for runs of the Temporal workflow type `type`: the entry of that type, else
 * (runs a Flowport worker started under an alias) the entry with that alias.
 */
export function entryOfType (catalog: Catalog, type: string): CatalogWorkflow | undefined {
  return catalog.workflows.find((w) => workflowTypeOf(w) === type) ?? catalog.workflows.find((w) => w.workflowType === undefined && w.aliases.includes(type))
}

/**
 * A declared catalog's worker has no Flowport payload codec: a value the API would store by
 * reference (over SERVICE_PAYLOAD_REF_THRESHOLD_BYTES) would reach it as a reference it cannot read,
 * so it is refused (413) before anything starts.
 */
export function assertFitsDeclared (catalog: Catalog, value: unknown, thresholdBytes: number, what: 'input' | 'payload'): void {
  if (catalog.declared !== true || value === undefined) return
  const bytes = Buffer.byteLength(JSON.stringify(value))
  if (bytes <= thresholdBytes) return
  throw new ApiError(413, 'PayloadTooLargeError', `The ${what} has ${bytes} bytes, more than SERVICE_PAYLOAD_REF_THRESHOLD_BYTES (${thresholdBytes}): ` +
    `Flowport would hand it to the engine by reference (claim check), and catalog ${catalog.catalog} is declared in a catalog file for workers ` +
    'without Flowport\'s payload codec, which could not read the reference (docs/any-worker.md)')
}

/** Why a feature of Flowport's worker SDK (evals) is not served for a declared catalog's workflows. */
export const notForDeclared = (catalog: Catalog, feature: string): string =>
  `${feature} need Flowport's worker SDK, and catalog ${catalog.catalog} is declared in a catalog file for workers without it (docs/any-worker.md)`

/**
 * Completion webhooks are delivered by a workflow Flowport's worker runs on the catalog's task
 * queue (docs/webhooks.md): a declared catalog's workers would be handed a type they do not know.
 */
export function assertNoWebhookOnDeclared (catalog: Catalog): void {
  if (catalog.declared !== true) return
  throw validationError([{
    path: '/webhook',
    in: 'body',
    message: `is not available on catalog ${catalog.catalog}: completion webhooks are delivered by Flowport's worker, and this catalog is declared in a catalog file ` +
      'for workers without it (docs/any-worker.md); follow the run with Prefer: wait, GET /workflow/{id}/result or the history stream instead'
  }])
}
