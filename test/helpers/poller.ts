/**
 * Stand-ins for a worker's presence on a task queue, as the engine sees it: a catalog published
 * the way a worker publishes it (the catalog workflow's start input and memo) and raw
 * workflow-task polls. Used where a test needs a catalog with, then without, a worker behind it,
 * without running one.
 */
import type { Client } from '@temporalio/client'
import { CATALOG_WORKFLOW_TYPE, catalogMemo, catalogWorkflowId, type Catalog } from '@flowport/core/contract'

export async function publishCatalog (client: Client, catalogId: string, workflows: unknown[] = []): Promise<void> {
  const catalog = { catalog: catalogId, publishedAt: new Date().toISOString(), workflows } as Catalog
  await client.workflow.start(CATALOG_WORKFLOW_TYPE, {
    workflowId: catalogWorkflowId(catalogId),
    taskQueue: catalogId,
    args: [{ catalog, hash: 'test' }],
    memo: catalogMemo(catalog, 'test')
  })
}

/**
 * Polls the task queue for workflow tasks until stopped (the tasks it receives are dropped and
 * time out), so the engine lists a poller on it. Survives an engine restart (it polls again).
 */
export function startPolling (client: Client, taskQueue: string): () => Promise<void> {
  const controller = new AbortController()
  const { namespace } = client.options
  const loop = (async () => {
    while (!controller.signal.aborted) {
      try {
        // The engine refuses a poll without a deadline; a worker's long poll lasts about a minute.
        await client.connection.withAbortSignal(controller.signal, async () => await client.connection.withDeadline(Date.now() + 70_000,
          async () => await client.workflowService.pollWorkflowTaskQueue({ namespace, taskQueue: { name: taskQueue }, identity: 'flowport-test-poller' })))
      } catch {
        if (!controller.signal.aborted) await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }
  })()
  return async () => {
    controller.abort()
    await loop
  }
}
