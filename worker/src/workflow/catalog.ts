/**
 * The catalog workflow: one long-running workflow per catalog id whose current run holds the
 * published catalog as its start input (why: contract.ts) and answers the `get` query. A worker with
 * a new catalog sends the `replace` update, and the run continues as new with that catalog as
 * input, so there is no terminate/start race. Versioned workers each keep their version's catalog
 * in `versions` (docs/versioning.md); versions the deployment no longer has are dropped.
 */
import {
  allHandlersFinished, condition, defineQuery, defineUpdate, makeContinueAsNewFunc, setHandler, workflowInfo
} from '@temporalio/workflow'
import { catalogMemo, type Catalog, type CatalogWorkflowInput } from '@flowport/core/contract'

export type PublishedCatalog = CatalogWorkflowInput

/** What a worker sends: its catalog and, from a versioned worker, the build ids its deployment still has. */
export interface CatalogPublication {
  catalog: Catalog
  hash: string
  liveBuildIds?: string[]
}

export const getCatalogQuery = defineQuery<Catalog>('get')
export const replaceCatalogUpdate = defineUpdate<{ replaced: boolean }, [CatalogPublication]>('replace')

/** The state after `next` is published, or null when it changes nothing. */
export function publish (current: PublishedCatalog, next: CatalogPublication): PublishedCatalog | null {
  const version = next.catalog.deployment ?? null
  if (version === null) {
    if (next.hash === current.hash) return null
    return { ...current, catalog: next.catalog, hash: next.hash }
  }
  const live = next.liveBuildIds === undefined ? null : new Set([...next.liveBuildIds, version.buildId])
  const kept = Object.entries(current.versions ?? {}).filter(([buildId]) => live === null || live.has(buildId))
  const versions = Object.fromEntries([...kept, [version.buildId, { catalog: next.catalog, hash: next.hash }]])
  const unchanged = current.versions?.[version.buildId]?.hash === next.hash && kept.length === Object.keys(current.versions ?? {}).length
  if (unchanged) return null
  return { catalog: next.catalog, hash: next.hash, versions }
}

export async function catalogWorkflow (published: PublishedCatalog): Promise<void> {
  let current = published
  setHandler(getCatalogQuery, () => current.catalog)
  setHandler(replaceCatalogUpdate, (next) => {
    const after = publish(current, next)
    if (after === null) return { replaced: false }
    current = after
    return { replaced: true }
  }, {
    validator: (next) => {
      if (typeof next?.hash !== 'string' || !Array.isArray(next.catalog?.workflows)) throw new Error('Not a catalog')
    }
  })

  // Also on the engine's suggestion alone: queries add no events, but a long life may.
  await condition(() => current !== published || workflowInfo().continueAsNewSuggested)
  await condition(allHandlersFinished)
  await makeContinueAsNewFunc<typeof catalogWorkflow>({ memo: catalogMemo(current.catalog, current.hash) })(current)
}
