/**
 * Catalog schemas come from the worker contract (one source for publisher and reader).
 */
import { Type } from '@sinclair/typebox'

export {
  CatalogSchema, CatalogWorkflowSchema, CatalogStepSchema, CatalogEvaluatorSchema, CatalogHandlerSchema
} from '@flowport/worker/contract'

export const CatalogParamsSchema = Type.Object({
  catalogId: Type.String({ minLength: 1, maxLength: 200, description: 'Catalog id (= Temporal task queue)' })
}, { $id: 'CatalogParams' })
