/**
 * Publishes the catalog: start the catalog workflow or join the running one (USE_EXISTING, so
 * workers starting together never fight), then hand it a different catalog through the `replace`
 * update (the run continues as new with it).
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client'
import {
  CATALOG_FORMAT, CATALOG_FORMAT_MEMO_KEY, CATALOG_HASH_MEMO_KEY, CATALOG_PUBLISHED_AT_MEMO_KEY, CATALOG_WORKFLOW_TYPE,
  catalogMemo, catalogWorkflowId, type Catalog
} from '@flowport/core/contract'
import { replaceCatalogUpdate, type PublishedCatalog } from '../workflow/catalog.js'

export interface Publication {
  /** `current`: the same catalog was already published (and is kept, publishedAt included). */
  outcome: 'current' | 'replaced'
  /** The catalog now published. */
  catalog: Catalog
}

export async function publishCatalog (client: Client, catalogId: string, catalog: Catalog, hash: string): Promise<Publication> {
  const published: PublishedCatalog = { catalog, hash }
  const workflowId = catalogWorkflowId(catalogId)
  const start = async () => await client.workflow.start(CATALOG_WORKFLOW_TYPE, {
    workflowId,
    taskQueue: catalogId,
    args: [published],
    memo: catalogMemo(catalog, hash),
    workflowIdConflictPolicy: 'USE_EXISTING'
  })
  let handle = await start()
  let description = await handle.describe()
  if (description.memo?.[CATALOG_FORMAT_MEMO_KEY] !== CATALOG_FORMAT) {
    // A run published by an older worker: its catalog lives elsewhere and its history was made by
    // other workflow code, so it is ended (that run only: a concurrent publisher may already have
    // started the next one) and started anew rather than replayed.
    await client.workflow.getHandle(workflowId, description.runId).terminate(`replaced by a catalog of format ${CATALOG_FORMAT}`)
      .catch((err: unknown) => { if (!(err instanceof WorkflowNotFoundError)) throw err })
    handle = await start()
    description = await handle.describe()
  }
  const { memo } = description
  if (memo?.[CATALOG_HASH_MEMO_KEY] === hash) return { outcome: 'current', catalog: { ...catalog, publishedAt: String(memo[CATALOG_PUBLISHED_AT_MEMO_KEY]) } }
  await handle.executeUpdate(replaceCatalogUpdate, { args: [published] })
  return { outcome: 'replaced', catalog }
}
