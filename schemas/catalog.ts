/**
 * Catalog schemas: what a worker publishes comes from the worker contract (one source for
 * publisher and reader); the API adds what the engine says about the catalog's workers.
 */
import { Type, type Static } from '@sinclair/typebox'
import { CatalogSchema as PublishedCatalogSchema } from '@flowport/core/contract'
import { Nullable, ref } from './common.js'

export {
  CatalogWorkflowSchema, CatalogStepSchema, CatalogEvaluatorSchema, CatalogHandlerSchema, CatalogWorkflowSourceSchema
} from '@flowport/core/contract'

export const CatalogIdSchema = Type.String({ minLength: 1, maxLength: 200, description: 'Catalog id (= Temporal task queue)', examples: ['main'] })

export const CatalogParamsSchema = Type.Object({
  catalogId: CatalogIdSchema
}, { $id: 'CatalogParams' })

export const CatalogWorkersSchema = Type.Object({
  polling: Type.Boolean({
    description: 'Whether any worker polls the catalog\'s task queue (polled within the last 70 s). When false, runs of ' +
      'this catalog wait without progress until a worker with SERVICE_CATALOG_ID=<catalog> starts, and starts answer 503.'
  }),
  pollers: Type.Integer({ minimum: 0, description: 'Pollers seen within the last 70 s (a worker holds several)' }),
  lastPollTime: Nullable(Type.String({ format: 'date-time', description: 'When a worker last polled; null if the engine has seen none lately' }))
}, {
  $id: 'CatalogWorkers',
  additionalProperties: false,
  description: 'The workers behind a catalog, from the engine\'s description of its task queue (cached for 2 s)'
})

export const CatalogSchema = Type.Object({
  ...PublishedCatalogSchema.properties,
  workers: ref(CatalogWorkersSchema)
}, { $id: 'Catalog', additionalProperties: false, description: 'A published catalog: its workflows with their JSON Schemas, and whether a worker serves it' })

export type CatalogWorkers = Static<typeof CatalogWorkersSchema>
export type CatalogResponse = Static<typeof CatalogSchema>

export const OpenApiDocumentSchema = Type.Object({
  openapi: Type.String({ examples: ['3.1.0'] }),
  info: Type.Object({ title: Type.String(), version: Type.String() }, { additionalProperties: true }),
  paths: Type.Record(Type.String(), Type.Unknown()),
  components: Type.Record(Type.String(), Type.Unknown())
}, {
  $id: 'OpenApiDocument',
  additionalProperties: true,
  description: 'An OpenAPI 3.1 document: this API, typed for one catalog (docs/catalog-openapi.md)'
})
export type OpenApiDocument = Static<typeof OpenApiDocumentSchema>
