/**
 * The workflows a catalog offers, with their JSON Schemas (DESIGN.md §4.4).
 * Registered before the `/workflow/:id/...` routes' group, and static segments win in
 * find-my-way anyway, so `/workflow/catalog` is never read as a workflow id.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorsFor, ref } from '../schemas/common.js'
import { CatalogParamsSchema, CatalogSchema } from '../schemas/catalog.js'

const catalog: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/workflow/catalog', {
    schema: {
      tags: ['catalog'],
      operationId: 'getDefaultCatalog',
      summary: 'Workflows of the default catalog (SERVICE_CATALOG_ID) with their JSON Schemas',
      response: { 200: ref(CatalogSchema), ...errorsFor(401, 500, 503) }
    }
  }, async () => await fastify.catalogs.get(fastify.config.SERVICE_CATALOG_ID))

  fastify.get('/workflow/catalog/:catalogId', {
    schema: {
      tags: ['catalog'],
      operationId: 'getCatalog',
      summary: 'Workflows of a named catalog with their JSON Schemas',
      params: ref(CatalogParamsSchema),
      response: { 200: ref(CatalogSchema), ...errorsFor(400, 401, 500, 503) }
    }
  }, async (request) => await fastify.catalogs.get(request.params.catalogId))
}

export default catalog
