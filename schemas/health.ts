import { Type, type Static } from '@sinclair/typebox'
import { Nullable, ref } from './common.js'
import { CatalogIdSchema, CatalogWorkersSchema } from './catalog.js'

export const HealthSchema = Type.Object({
  status: Type.Literal('ok')
}, { $id: 'Health', additionalProperties: false, description: 'The process is up' })

export const CatalogReadinessSchema = Type.Object({
  catalog: CatalogIdSchema,
  workers: ref(CatalogWorkersSchema)
}, { $id: 'CatalogReadiness', additionalProperties: false, description: 'A published catalog and the workers that poll its task queue' })

export const ReadinessSchema = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  engine: Type.Boolean({ description: 'The Temporal frontend answered' }),
  catalog: Type.Boolean({ description: 'The default catalog is published' }),
  workers: Type.Boolean({ description: 'A worker polls the default catalog\'s task queue (runs started now make progress)' }),
  deliveryWorker: Type.Boolean({
    description: 'A delivery worker (`flowport deliveries`) polls `__flowport_deliveries`, so completion webhooks of catalogs declared in a file go out ' +
      '(they wait until one does). Informs only: Flowport\'s own catalogs deliver from their workers, so it never makes the API not ready'
  }),
  catalogs: Type.Array(ref(CatalogReadinessSchema), {
    description: 'Every published catalog with its workers (from the engine\'s visibility list, so a catalog published a moment ago may be missing); empty while the engine is away'
  }),
  reason: Nullable(Type.String({ description: 'Why the API is not ready; null when ready' }))
}, {
  $id: 'Readiness',
  additionalProperties: false,
  description: 'Ready = the engine answers, the default catalog is published and a worker polls it'
})

export type Readiness = Static<typeof ReadinessSchema>
