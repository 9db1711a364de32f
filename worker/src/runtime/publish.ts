/**
 * Publishes the catalog: start the catalog workflow or join the running one (USE_EXISTING, so
 * workers starting together never fight), then replace its catalog in place when the hash differs.
 */
import type { Client } from '@temporalio/client'
import { CATALOG_HASH_MEMO_KEY, CATALOG_MEMO_KEY, CATALOG_WORKFLOW_TYPE, catalogWorkflowId, type Catalog } from '../contract.js'
import { catalogMemo, replaceCatalogUpdate, type PublishedCatalog } from '../workflow/catalog.js'

export interface Publication {
  /** `current`: the same catalog was already published (and is kept, publishedAt included). */
  outcome: 'current' | 'replaced'
  /** The catalog now published. */
  catalog: Catalog
}

export async function publishCatalog (client: Client, catalogId: string, catalog: Catalog, hash: string): Promise<Publication> {
  const published: PublishedCatalog = { catalog, hash }
  const handle = await client.workflow.start(CATALOG_WORKFLOW_TYPE, {
    workflowId: catalogWorkflowId(catalogId),
    taskQueue: catalogId,
    args: [published],
    memo: catalogMemo(published),
    workflowIdConflictPolicy: 'USE_EXISTING'
  })
  const { memo } = await handle.describe()
  if (memo?.[CATALOG_HASH_MEMO_KEY] === hash) return { outcome: 'current', catalog: memo[CATALOG_MEMO_KEY] as Catalog }
  await handle.executeUpdate(replaceCatalogUpdate, { args: [published] })
  return { outcome: 'replaced', catalog }
}
