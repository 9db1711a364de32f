/**
 * The catalog workflow: one long-running run per catalog id holds the published catalog in its
 * memo (the API reads it with `describe` alone) and answers the `get` query. A worker with a new
 * catalog replaces it in place through the `replace` update, so there is no terminate/start race.
 */
import {
  allHandlersFinished, condition, defineQuery, defineUpdate, makeContinueAsNewFunc, setHandler, upsertMemo, workflowInfo
} from '@temporalio/workflow'
import { CATALOG_HASH_MEMO_KEY, CATALOG_MEMO_KEY, type Catalog } from '../contract.js'

export interface PublishedCatalog {
  catalog: Catalog
  hash: string
  /** Replacements before the run continues as new (keeps the history short); default 100. */
  replacementsPerRun?: number
}

export const getCatalogQuery = defineQuery<Catalog>('get')
export const replaceCatalogUpdate = defineUpdate<{ replaced: boolean }, [PublishedCatalog]>('replace')

const DEFAULT_REPLACEMENTS_PER_RUN = 100

export function catalogMemo (published: PublishedCatalog): Record<string, unknown> {
  return { [CATALOG_MEMO_KEY]: published.catalog, [CATALOG_HASH_MEMO_KEY]: published.hash }
}

export async function catalogWorkflow (published: PublishedCatalog): Promise<void> {
  let current = published
  let replacements = 0
  setHandler(getCatalogQuery, () => current.catalog)
  setHandler(replaceCatalogUpdate, (next) => {
    if (next.hash === current.hash) return { replaced: false }
    current = { ...next, replacementsPerRun: published.replacementsPerRun }
    replacements++
    upsertMemo(catalogMemo(current))
    return { replaced: true }
  }, {
    validator: (next) => {
      if (typeof next?.hash !== 'string' || !Array.isArray(next.catalog?.workflows)) throw new Error('Not a catalog')
    }
  })

  const limit = published.replacementsPerRun ?? DEFAULT_REPLACEMENTS_PER_RUN
  await condition(() => replacements >= limit || workflowInfo().continueAsNewSuggested)
  await condition(allHandlersFinished)
  // The memo is passed on explicitly: the API must find the catalog on the new run too.
  await makeContinueAsNewFunc<typeof catalogWorkflow>({ memo: catalogMemo(current) })(current)
}
