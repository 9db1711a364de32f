/**
 * Reads published catalogs from Temporal: the catalog workflow's memo, by `describe` alone, so it
 * needs no worker round trip. A short cache keeps starts at one engine call (the start itself).
 */
import fp from 'fastify-plugin'
import { CATALOG_MEMO_KEY, catalogWorkflowId, type Catalog, type CatalogWorkflow } from '@flowport/worker/contract'
import { ApiError, RETRY_AFTER_SECONDS } from '../lib/api-error.js'

const CACHE_TTL_MS = 2000

export interface Catalogs {
  /** The published catalog, or CatalogNotAvailableError (503). */
  get: (catalogId: string, signal?: AbortSignal) => Promise<Catalog>
  /** A workflow of the catalog by name or alias, or WorkflowNotFoundError (404). */
  workflow: (catalogId: string, name: string, signal?: AbortSignal) => Promise<CatalogWorkflow>
}

declare module 'fastify' {
  interface FastifyInstance { catalogs: Catalogs }
}

const notAvailable = (catalogId: string) => new ApiError(503, 'CatalogNotAvailableError',
  `Catalog ${catalogId} is not available: no worker has published it`, { headers: { 'retry-after': RETRY_AFTER_SECONDS } })

export default fp(async (fastify) => {
  const cache = new Map<string, { at: number, catalog: Promise<Catalog> }>()

  async function load (catalogId: string, signal?: AbortSignal): Promise<Catalog> {
    const description = await fastify.engineCall(
      () => fastify.temporal.workflow.getHandle(catalogWorkflowId(catalogId)).describe(), { signal }
    ).catch((err: unknown) => {
      if (err instanceof ApiError && err.statusCode === 404) throw notAvailable(catalogId)
      throw err
    })
    const catalog = description.memo?.[CATALOG_MEMO_KEY] as Catalog | undefined
    if (description.status.name !== 'RUNNING' || !catalog) throw notAvailable(catalogId)
    return catalog
  }

  async function get (catalogId: string, signal?: AbortSignal): Promise<Catalog> {
    const hit = cache.get(catalogId)
    if (hit && Date.now() - hit.at < CACHE_TTL_MS) return await hit.catalog
    const catalog = load(catalogId, signal)
    cache.set(catalogId, { at: Date.now(), catalog })
    // Failures are not cached: the next request asks the engine again.
    catalog.catch(() => { if (cache.get(catalogId)?.catalog === catalog) cache.delete(catalogId) })
    return await catalog
  }

  async function workflow (catalogId: string, name: string, signal?: AbortSignal): Promise<CatalogWorkflow> {
    const catalog = await get(catalogId, signal)
    const found = catalog.workflows.find((w) => w.name === name || w.aliases.includes(name))
    if (!found) throw new ApiError(404, 'WorkflowNotFoundError', `Workflow ${name} is not in catalog ${catalogId}`)
    return found
  }

  fastify.decorate('catalogs', { get, workflow })
}, { name: 'catalog', dependencies: ['temporal'] })
