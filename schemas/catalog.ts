/**
 * Catalog schemas: what a worker publishes comes from the worker contract (one source for
 * publisher and reader); the API adds what the engine says about the catalog's workers.
 */
import { Type, type Static } from '@sinclair/typebox'
import { CatalogSchema as PublishedCatalogSchema } from '@flowport/core/contract'
import { Nullable, QueryTextSchema, ref } from './common.js'
import { WorkerDeploymentVersionSchema } from './deployment-version.js'
import { Literals } from './status.js'
import { DEPLOYMENT_VERSION_STATES } from './deployments.js'

export {
  CatalogWorkflowSchema, CatalogStepSchema, CatalogEvaluatorSchema, CatalogHandlerSchema, CatalogWorkflowSourceSchema
} from '@flowport/core/contract'

/** A catalog's runs are listed by it (`TaskQueue = …`): a visibility query value. */
export const CatalogIdSchema = Type.String({ ...QueryTextSchema, maxLength: 200, description: 'Catalog id (= Temporal task queue)', examples: ['main'] })

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

export const CatalogRampingVersionSchema = Type.Object({
  version: ref(WorkerDeploymentVersionSchema),
  percentage: Type.Number({ minimum: 0, maximum: 100, description: 'Share of new runs it receives, in percent' })
}, { $id: 'CatalogRampingVersion', additionalProperties: false, description: 'The version receiving a share of new runs' })

export const CatalogServingVersionSchema = Type.Object({
  version: ref(WorkerDeploymentVersionSchema),
  openRuns: Type.Integer({ minimum: 1, description: 'Open runs of the catalog on this version (the engine\'s visibility count, eventually consistent)' })
}, { $id: 'CatalogServingVersion', additionalProperties: false, description: 'A version still serving open runs of the catalog' })

export const CatalogVersionSchema = Type.Object({
  version: ref(WorkerDeploymentVersionSchema),
  state: Literals(DEPLOYMENT_VERSION_STATES, { description: 'As GET /deployments/{deploymentName} shows it: `current`, `ramping`, `draining`, `drained` or `inactive`' }),
  rampPercentage: Nullable(Type.Number({ description: 'While `ramping`: the share of new runs it receives' })),
  pollers: Type.Integer({ minimum: 1, description: 'Its pollers on the catalog\'s task queue (a worker holds several)' }),
  workflows: Nullable(Type.Array(Type.String(), { description: 'The workflows its code offers, by name' }))
}, {
  $id: 'CatalogVersion',
  additionalProperties: false,
  description: 'A version whose workers poll the catalog; `workflows` null when the catalog no longer keeps its entries (its workers published before the deployment dropped it)'
})

export const CatalogVersionsSchema = Type.Object({
  deploymentName: Type.String({ description: 'The worker deployment the catalog\'s versioned workers run under' }),
  current: Type.Union([ref(WorkerDeploymentVersionSchema), Type.Null()], { description: 'The version new runs go to; null while none is current (new runs then go to unversioned workers)' }),
  ramping: Type.Union([ref(CatalogRampingVersionSchema), Type.Null()], { description: 'The version receiving a share of new runs; null when none ramps' }),
  serving: Type.Array(ref(CatalogServingVersionSchema), { description: 'Versions still serving open runs: their workers must keep running until the count is gone' }),
  polling: Type.Array(ref(CatalogVersionSchema), {
    description: 'The versions whose workers poll the catalog\'s task queue now (seen within 70 s), most recently created first, ' +
      'each with its state and the workflows its code offers'
  })
}, {
  $id: 'CatalogVersions',
  additionalProperties: false,
  description: 'The catalog\'s worker deployment as the engine describes it (cached for 2 s); docs/versioning.md'
})

export const CatalogSchema = Type.Object({
  ...PublishedCatalogSchema.properties,
  deployment: Type.Union([ref(WorkerDeploymentVersionSchema), Type.Null()], {
    description: 'The version whose workers published the entries shown: the current version\'s while several are live; null from unversioned (or older) workers'
  }),
  versions: Type.Union([ref(CatalogVersionsSchema), Type.Null()], { description: 'Current, ramping and serving versions; null when the catalog\'s workers are unversioned' }),
  workers: ref(CatalogWorkersSchema)
}, { $id: 'Catalog', additionalProperties: false, description: 'A published catalog: its workflows with their JSON Schemas, and whether a worker serves it' })

export type CatalogWorkers = Static<typeof CatalogWorkersSchema>
export type CatalogVersions = Static<typeof CatalogVersionsSchema>
export type CatalogVersion = Static<typeof CatalogVersionSchema>
export type CatalogResponse = Static<typeof CatalogSchema>

export const OpenApiInfoSchema = Type.Object({ title: Type.String(), version: Type.String() }, {
  $id: 'OpenApiInfo', additionalProperties: true, description: 'The document\'s `info`'
})

export const OpenApiDocumentSchema = Type.Object({
  openapi: Type.String({ examples: ['3.1.0'] }),
  info: ref(OpenApiInfoSchema),
  paths: Type.Record(Type.String(), Type.Unknown()),
  components: Type.Record(Type.String(), Type.Unknown())
}, {
  $id: 'OpenApiDocument',
  additionalProperties: true,
  description: 'An OpenAPI 3.1 document: this API, typed for one catalog (docs/catalog-openapi.md)'
})
export type OpenApiDocument = Static<typeof OpenApiDocumentSchema>
