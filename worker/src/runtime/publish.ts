/**
 * Publishes the catalog: start the catalog workflow or join the running one (USE_EXISTING, so
 * workers starting together never fight), then hand it a different catalog through the `replace`
 * update (the run continues as new with it). A versioned worker's catalog is kept beside the other
 * versions' (worker/src/workflow/catalog.ts), with the build ids its deployment still has, so that
 * versions the engine no longer knows are dropped.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client'
import {
  CATALOG_FORMAT, CATALOG_FORMAT_MEMO_KEY, CATALOG_HASH_MEMO_KEY, CATALOG_PUBLISHED_AT_MEMO_KEY, CATALOG_WORKFLOW_TYPE,
  DECLARED_CATALOG_TASK_QUEUE, catalogMemo, catalogWorkflowId, type Catalog
} from '@flowport/core/contract'
import { replaceCatalogUpdate, type CatalogPublication, type PublishedCatalog } from '../workflow/catalog.js'

export interface Publication {
  /**
   * `published`: this worker started the catalog workflow with its catalog; `current`: the same
   * catalog was already published (and is kept, publishedAt included); `replaced`: this worker's
   * catalog took the place of another one.
   */
  outcome: 'published' | 'current' | 'replaced'
  /** The catalog now published. */
  catalog: Catalog
}

/** Build ids the worker deployment lists (every version not deleted), or none when it does not exist yet. */
async function liveBuildIds (client: Client, deploymentName: string): Promise<string[]> {
  try {
    const { workerDeploymentInfo } = await client.workflowService.describeWorkerDeployment({ namespace: client.options.namespace, deploymentName })
    return (workerDeploymentInfo?.versionSummaries ?? []).flatMap((v) => v.deploymentVersion?.buildId ?? [])
  } catch (err) {
    if ((err as { code?: number }).code === 5) return [] // NOT_FOUND: this worker's version is the first
    throw err
  }
}

/** A Flowport worker and a catalog file never share a catalog id (docs/any-worker.md): not retried, as a definition error. */
export class CatalogDeclaredError extends Error {
  constructor (catalogId: string) {
    super(`Catalog ${catalogId} is declared by a catalog file (flowport catalog publish), for workers without Flowport's SDK: ` +
      'a Flowport worker cannot publish its own catalog under the same id. Give this worker another SERVICE_CATALOG_ID, or remove the ' +
      `declared catalog first (flowport catalog remove ${catalogId})`)
  }
}

export async function publishCatalog (client: Client, catalogId: string, catalog: Catalog, hash: string): Promise<Publication> {
  const version = catalog.deployment ?? null
  const published: PublishedCatalog = version === null ? { catalog, hash } : { catalog, hash, versions: { [version.buildId]: { catalog, hash } } }
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
  // No worker handles a declared catalog's run: the update below would wait forever.
  if (description.taskQueue === DECLARED_CATALOG_TASK_QUEUE) throw new CatalogDeclaredError(catalogId)
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
  if (memo?.[CATALOG_HASH_MEMO_KEY] === hash) {
    // The run's publishedAt is this catalog's own when this worker's start made the run.
    const publishedAt = String(memo[CATALOG_PUBLISHED_AT_MEMO_KEY])
    return { outcome: publishedAt === catalog.publishedAt ? 'published' : 'current', catalog: { ...catalog, publishedAt } }
  }
  const publication: CatalogPublication = version === null ? { catalog, hash } : { catalog, hash, liveBuildIds: await liveBuildIds(client, version.deploymentName) }
  // By workflow id alone: the handle `start` returned names the run it joined as the chain's first
  // run, and once the catalog workflow has continued as new that is no longer true, so the engine
  // would answer "workflow execution not found" to every later publication.
  const { replaced } = await client.workflow.getHandle(workflowId).executeUpdate(replaceCatalogUpdate, { args: [publication] })
  return { outcome: replaced ? 'replaced' : 'current', catalog }
}
