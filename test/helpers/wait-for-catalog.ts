/**
 * The wait for a worker's catalog: of the test runner's shared worker (scripts/test.ts) and of the
 * benchmarks' workers (bench/).
 */
import type { Client } from '@temporalio/client'
import { CATALOG_HASH_MEMO_KEY, catalogWorkflowId } from '@flowport/core/contract'

/** Resolves once a worker has published `catalog`. */
export async function waitForCatalog (client: Client, catalog: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      const { memo } = await client.workflow.getHandle(catalogWorkflowId(catalog)).describe()
      if (memo?.[CATALOG_HASH_MEMO_KEY]) return
    } catch { /* not published yet */ }
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`the worker did not publish catalog ${catalog}`)
}
