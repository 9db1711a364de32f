/**
 * Every named schema, in dependency order; plugins/schemas.ts adds them all to Fastify so routes
 * can `ref()` them and the OpenAPI document lists them as components.
 */
import { ErrorResponseSchema, IssueSchema, RunParamsSchema, ValidationErrorSchema, WorkflowParamsSchema } from './common.js'
import { HealthSchema, ReadinessSchema } from './health.js'
import {
  CatalogEvaluatorSchema, CatalogHandlerSchema, CatalogParamsSchema, CatalogSchema, CatalogStepSchema, CatalogWorkflowSchema
} from './catalog.js'

export const schemas = [
  IssueSchema, ErrorResponseSchema, ValidationErrorSchema, WorkflowParamsSchema, RunParamsSchema,
  HealthSchema, ReadinessSchema,
  CatalogStepSchema, CatalogEvaluatorSchema, CatalogHandlerSchema, CatalogWorkflowSchema, CatalogSchema, CatalogParamsSchema
]
