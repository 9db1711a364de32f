/**
 * The workflows a catalog offers, with their JSON Schemas, and whether a worker serves it.
 * Registered before the `/workflow/:id/...` routes' group, and static segments win in
 * find-my-way anyway, so `/workflow/catalog` is never read as a workflow id.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponseSchema, errorsFor, ref, response } from '../schemas/common.js'
import { CatalogParamsSchema, CatalogSchema, type CatalogResponse } from '../schemas/catalog.js'
import { access } from '../lib/access/scopes.js'

const ok = response(CatalogSchema, 'The catalog: its workflows with their JSON Schemas, and whether any worker polls its task queue')
const unavailable = response(ErrorResponseSchema, 'CatalogNotAvailableError: the default catalog is not published yet (its worker has not ' +
  'started) or no longer published; EngineUnavailableError: Temporal is unreachable. `Retry-After` is set. ' +
  'A catalog that is published but has no worker answers 200 with `workers.polling: false`.')

const catalog: FastifyPluginAsyncTypebox = async (fastify) => {
  async function read (catalogId: string, signal?: AbortSignal): Promise<CatalogResponse> {
    // One after the other: a call left running after the answer would outlive a closing app.
    const published = await fastify.catalogs.get(catalogId, signal)
    return { ...published, workers: await fastify.catalogs.workers(catalogId, signal) }
  }

  fastify.get('/workflow/catalog', {
    config: access('read', 'catalog'),
    schema: {
      tags: ['catalog'],
      operationId: 'getDefaultCatalog',
      summary: 'Workflows of the default catalog (SERVICE_CATALOG_ID) with their JSON Schemas',
      response: { 200: ok, ...errorsFor(401, 500), 503: unavailable }
    }
  }, async () => await read(fastify.config.SERVICE_CATALOG_ID))

  fastify.get('/workflow/catalog/:catalogId', {
    config: access('read', 'catalog'),
    schema: {
      tags: ['catalog'],
      operationId: 'getCatalog',
      summary: 'Workflows of a named catalog with their JSON Schemas',
      params: ref(CatalogParamsSchema),
      response: {
        200: ok,
        ...errorsFor(400, 401, 500),
        404: response(ErrorResponseSchema, 'WorkflowNotFoundError: no worker has ever published this catalog (the message says how to publish it)'),
        503: unavailable
      }
    }
  }, async (request) => await read(request.params.catalogId))
}

export default catalog
