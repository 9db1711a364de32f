/**
 * The workflows a catalog offers, with their JSON Schemas, and whether a worker serves it.
 * Registered before the `/workflow/:id/...` routes' group, and static segments win in
 * find-my-way anyway, so `/workflow/catalog` is never read as a workflow id.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ErrorResponseSchema, errorsFor, ref, response } from '../schemas/common.js'
import { CatalogParamsSchema, CatalogSchema, OpenApiDocumentSchema, type CatalogResponse } from '../schemas/catalog.js'
import { ConditionalReadHeadersSchema, notModified, withEtag } from '../plugins/http/conditional/schema.js'
import { access } from '../plugins/app/access/route-access.js'

const ok = withEtag(CatalogSchema, 'The catalog: its workflows with their JSON Schemas, and whether any worker polls its task queue')
const unavailable = response(ErrorResponseSchema, 'CatalogNotAvailableError: the default catalog is not published yet (its worker has not ' +
  'started) or no longer published; EngineUnavailableError: Temporal is unreachable. `Retry-After` is set. ' +
  'A catalog that is published but has no worker answers 200 with `workers.polling: false`.')
const neverPublished = response(ErrorResponseSchema, 'WorkflowNotFoundError: no worker has ever published this catalog (the message says how to publish it)')

const catalog: FastifyPluginAsyncTypebox = async (fastify) => {
  async function read (catalogId: string, signal?: AbortSignal): Promise<CatalogResponse> {
    // One after the other: a call left running after the answer would outlive a closing app.
    const published = await fastify.catalogs.get(catalogId, signal)
    const versions = await fastify.catalogs.versions(catalogId, signal)
    return { ...published, deployment: published.deployment ?? null, versions, workers: await fastify.catalogs.workers(catalogId, signal) }
  }

  const readConfig = { ...access('read', 'catalog'), etag: true as const }
  const documentOk = withEtag(OpenApiDocumentSchema, 'The API\'s OpenAPI 3.1 document typed for the catalog: start/run bodies are a union ' +
    'discriminated by `workflowName`, each workflow\'s input, output and result are components (`<name>.Input`, `<name>.Output`, ' +
    '`<name>.WorkflowResult`), results are the union of those discriminated by `workflowName`, and each signal, query and update has a typed operation at its concrete path. It changes when a ' +
    'worker publishes another catalog; its `ETag` lets a generator skip an unchanged one (docs/catalog-openapi.md)')
  const documentDescription = 'Generated from the catalog as published now (the same document as /openapi.json, with the catalog\'s ' +
    'JSON Schemas filled in); feed it to an OpenAPI client generator. Send its `ETag` back in `If-None-Match` to learn (304) that it has not changed.'

  // Each for the default catalog (SERVICE_CATALOG_ID) and a named one. Static segments win in find-my-way:
  // a catalog named `openapi.json` is not reachable as /workflow/catalog/{catalogId}.
  const routes = [
    { url: '/workflow/catalog', operationId: 'getDefaultCatalog', summary: 'Workflows of the default catalog (SERVICE_CATALOG_ID) with their JSON Schemas' },
    { url: '/workflow/catalog/openapi.json', operationId: 'getDefaultCatalogOpenApi', summary: 'The OpenAPI document typed for the default catalog (SERVICE_CATALOG_ID)' },
    { url: '/workflow/catalog/:catalogId/openapi.json', operationId: 'getCatalogOpenApi', summary: 'The OpenAPI document typed for a named catalog' },
    { url: '/workflow/catalog/:catalogId', operationId: 'getCatalog', summary: 'Workflows of a named catalog with their JSON Schemas' }
  ]
  for (const { url, operationId, summary } of routes) {
    const named = url.includes(':catalogId')
    const document = url.endsWith('/openapi.json')
    fastify.get<{ Params: { catalogId?: string } }>(url, {
      config: readConfig,
      schema: {
        tags: ['catalog'],
        operationId,
        summary,
        ...(document && { description: documentDescription }),
        ...(named && { params: ref(CatalogParamsSchema) }),
        headers: ref(ConditionalReadHeadersSchema),
        response: { 200: document ? documentOk : ok, 304: notModified, ...errorsFor(400, 401, 500, 502), ...(named && { 404: neverPublished }), 503: unavailable }
      }
    }, async (request) => {
      const catalogId = request.params.catalogId ?? fastify.config.SERVICE_CATALOG_ID
      return document ? await fastify.catalogs.document(catalogId) : await read(catalogId)
    })
  }
}

export default catalog
