/**
 * The catalog workflow: one long-running workflow per catalog id whose current run holds the
 * published catalog as its start input (the API reads it from the run's first history event; the
 * memo keeps only the hash, see contract.ts) and answers the `get` query. A worker with a new
 * catalog sends the `replace` update, and the run continues as new with that catalog as input, so
 * there is no terminate/start race and the memo stays small.
 */
import {
  allHandlersFinished, condition, defineQuery, defineUpdate, makeContinueAsNewFunc, setHandler, workflowInfo
} from '@temporalio/workflow'
import { catalogMemo, type Catalog } from '@flowport/core/contract'

export interface PublishedCatalog {
  catalog: Catalog
  hash: string
}

export const getCatalogQuery = defineQuery<Catalog>('get')
export const replaceCatalogUpdate = defineUpdate<{ replaced: boolean }, [PublishedCatalog]>('replace')

export async function catalogWorkflow (published: PublishedCatalog): Promise<void> {
  let current = published
  setHandler(getCatalogQuery, () => current.catalog)
  setHandler(replaceCatalogUpdate, (next) => {
    if (next.hash === current.hash) return { replaced: false }
    current = { catalog: next.catalog, hash: next.hash }
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
