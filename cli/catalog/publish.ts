/**
 * Publishes a declared catalog as a Flowport worker publishes its own (worker/src/runtime/publish.ts):
 * the catalog is the start input of the run of catalogWorkflowId(catalog id), with the same memo,
 * so every API replica reads it in one engine call, as any catalog. The difference: the run waits
 * on DECLARED_CATALOG_TASK_QUEUE, which no worker polls (the catalog's own queue belongs to its
 * workers, which know nothing of Flowport's catalog workflow), and a new catalog replaces the run
 * (TERMINATE_EXISTING: a new run id, which the API reads again) instead of an update no worker
 * would handle.
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client'
import { defaultPayloadConverter } from '@temporalio/common'
import {
  CATALOG_FORMAT, CATALOG_FORMAT_MEMO_KEY, CATALOG_HASH_MEMO_KEY, CATALOG_PUBLISHED_AT_MEMO_KEY, CATALOG_WORKFLOW_TYPE, DECLARED_CATALOG_TASK_QUEUE,
  catalogMemo, catalogWorkflowId, type Catalog, type CatalogWorkflowInput
} from '@flowport/core/contract'

/** Refused: the catalog id belongs to a Flowport worker, or nothing is declared under it. */
export class CatalogConflictError extends Error {}

export interface DeclaredPublication {
  /** `published`: the first catalog under this id; `replaced`: another declared catalog was replaced; `current`: the same one was already published. */
  outcome: 'published' | 'replaced' | 'current'
  catalog: Catalog
  runId: string
}

/** The open catalog run of `catalogId`, or null. */
async function openRun (client: Client, catalogId: string): Promise<WorkflowExecutionDescription | null> {
  const description = await client.workflow.getHandle(catalogWorkflowId(catalogId)).describe().catch((err: unknown) => {
    if (err instanceof WorkflowNotFoundError) return null
    throw err
  })
  return description?.status.name === 'RUNNING' ? description : null
}

const isDeclared = (run: WorkflowExecutionDescription) => run.taskQueue === DECLARED_CATALOG_TASK_QUEUE

function ownedByWorker (catalogId: string): CatalogConflictError {
  return new CatalogConflictError(`Catalog ${catalogId} is published by a Flowport worker (SERVICE_CATALOG_ID=${catalogId}): a catalog file cannot ` +
    'declare the same id, as the two would answer for one task queue. Declare the file under the catalog id its own workers poll, or stop ' +
    `that Flowport worker and terminate its catalog workflow (${catalogWorkflowId(catalogId)}) first`)
}

/** Each attempt lost a race to another publisher (or a worker) and is decided again from what won. */
const PUBLISH_ATTEMPTS = 5

/**
 * Decided by what the describe saw, made safe against what starts meanwhile: with nothing open, the
 * start fails if another publisher or a Flowport worker started first (the engine's conflict
 * policy FAIL), and the publication is decided again against that run, so a worker's catalog is
 * never terminated and two identical publications make one run. A declared run is replaced
 * (TERMINATE_EXISTING): among catalog files, the last publication wins.
 */
export async function publishDeclaredCatalog (client: Client, catalog: Catalog, hash: string): Promise<DeclaredPublication> {
  const catalogId = catalog.catalog
  for (let attempt = 1; ; attempt++) {
    const current = await openRun(client, catalogId)
    if (current !== null && !isDeclared(current)) throw ownedByWorker(catalogId)
    if (current !== null && current.memo?.[CATALOG_HASH_MEMO_KEY] === hash && current.memo[CATALOG_FORMAT_MEMO_KEY] === CATALOG_FORMAT) {
      return { outcome: 'current', catalog: { ...catalog, publishedAt: String(current.memo[CATALOG_PUBLISHED_AT_MEMO_KEY]) }, runId: current.runId }
    }
    const input: CatalogWorkflowInput = { catalog, hash }
    try {
      const handle = await client.workflow.start(CATALOG_WORKFLOW_TYPE, {
        workflowId: catalogWorkflowId(catalogId),
        taskQueue: DECLARED_CATALOG_TASK_QUEUE,
        args: [input],
        memo: catalogMemo(catalog, hash),
        workflowIdConflictPolicy: current === null ? 'FAIL' : 'TERMINATE_EXISTING',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE'
      })
      return { outcome: current === null ? 'published' : 'replaced', catalog, runId: handle.firstExecutionRunId }
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err
      if (attempt >= PUBLISH_ATTEMPTS) {
        throw new CatalogConflictError(`Catalog ${catalogId} was published by someone else each of ${PUBLISH_ATTEMPTS} times this publication tried: run flowport catalog show ${catalogId}, then publish again`)
      }
    }
  }
}

/** Ends the declared catalog of `catalogId`: the API answers 503 for it from then on. */
export async function removeDeclaredCatalog (client: Client, catalogId: string): Promise<void> {
  const current = await openRun(client, catalogId)
  if (current === null) throw new CatalogConflictError(`Catalog ${catalogId} is not published`)
  if (!isDeclared(current)) throw ownedByWorker(catalogId)
  await client.workflow.getHandle(current.workflowId, current.runId).terminate('removed by flowport catalog remove')
}

export interface PublishedCatalogView {
  catalog: Catalog
  /** `file` for a declared catalog, `worker` for a Flowport worker's own. */
  publishedBy: 'file' | 'worker'
  runId: string
}

/** The catalog published under `catalogId` (declared or a worker's), read as the API reads it; null when none is. */
export async function readPublishedCatalog (client: Client, catalogId: string): Promise<PublishedCatalogView | null> {
  const current = await openRun(client, catalogId)
  if (current === null) return null
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace, execution: { workflowId: current.workflowId, runId: current.runId }, maximumPageSize: 1
  })
  const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]
  if (payload == null) return null
  const input = defaultPayloadConverter.fromPayload<CatalogWorkflowInput>(payload)
  return { catalog: input.catalog, publishedBy: isDeclared(current) ? 'file' : 'worker', runId: current.runId }
}
