/**
 * Every named schema, in dependency order; plugins/external/schemas/index.ts adds them all to Fastify so routes
 * can `ref()` them and the OpenAPI document lists them as components.
 */
import { ErrorResponseSchema, IssueSchema, RunParamsSchema, ValidationErrorSchema, WorkflowParamsSchema } from './common.js'
import { CatalogReadinessSchema, HealthSchema, ReadinessSchema } from './health.js'
import { RunStatusSchema, TerminalRunStatusSchema } from './status.js'
import {
  CatalogEvaluatorSchema, CatalogHandlerSchema, CatalogParamsSchema, CatalogRampingVersionSchema, CatalogSchema, CatalogServingVersionSchema, CatalogStepSchema, CatalogVersionSchema, CatalogVersionsSchema, CatalogWorkersSchema,
  CatalogWorkflowSchema, CatalogWorkflowSourceSchema, OpenApiDocumentSchema, OpenApiInfoSchema
} from './catalog.js'
import { WorkerDeploymentVersionSchema } from './deployment-version.js'
import { ConditionalReadHeadersSchema, RunPreconditionHeadersSchema } from '../plugins/http/conditional/schema.js'
import {
  HistoryEventSchema, HistoryPageSchema, HistoryQuerySchema, HistoryStreamDoneSchema, HistoryStreamHeadersSchema, HistoryStreamQuerySchema,
  HistoryStreamServerErrorSchema, HistoryWorkflowSchema
} from './history.js'
import {
  ErrorDetailsSchema, FailureCauseSchema, QueryBodySchema, QueryParamsSchema, QueryResultSchema, RunQueryParamsSchema, RunWorkflowBodySchema, RunsQuerySchema,
  SignalBodySchema, SignalParamsSchema, SignalResultSchema, StartWorkflowBodySchema, TraceDestinationsSchema, TraceInfoSchema,
  UpdateBodySchema, UpdateParamsSchema, UpdateResultSchema, UpdateHeadersSchema, UpdateAcceptedSchema, UpdateStateParamsSchema, UpdateStateSchema,
  WorkflowInputSchema, WorkflowResultSchema, WorkflowRunsSchema, WorkflowStartedSchema, WorkflowStatusSchema,
  RunWorkflowHeadersSchema, StartWorkflowHeadersSchema, WebhookRequestSchema, WebhookDeliverySchema, UpdateWithStartSchema
} from './workflow.js'
import { TraceLogSchema, traceSchemas } from './trace.js'
import { RunTokenRequestSchema, RunTokenSchema, RunTokenScopeSchema } from './tokens.js'
import { CredentialSchema, ScopeSchema } from './access.js'
import { scheduleSchemas } from './schedules.js'
import { AttentionSchema, ResetBodySchema, ResetFromSchema, ResetPointSchema, ResetResultSchema, ResetStepSchema } from './reset.js'
import {
  BatchBodySchema, BatchFilterSchema, BatchParamsSchema, BatchQueryFilterSchema, BatchResetSchema, BatchRunFilterSchema, BatchSignalSchema,
  BatchStartedSchema, BatchStatusSchema
} from './batch.js'
import { StopBodySchema, StopResultSchema, TerminateBodySchema, TerminateResultSchema } from './control.js'
import { runsFeedSchemas } from './runs-feed.js'
import { historySseSchemas } from './history-stream.js'
import { PayloadLinkSchema, PayloadUploadSchema } from './payloads.js'
import { evalRouteSchemas, evalSchemas } from './evals.js'
import { deploymentSchemas } from './deployments.js'
import { VersioningOverrideSchema, runVersioningSchemas } from './run-versioning.js'

export const schemas = [
  ResetStepSchema, ResetFromSchema, ResetBodySchema, ResetPointSchema, ResetResultSchema, AttentionSchema,
  IssueSchema, ErrorResponseSchema, ValidationErrorSchema, WorkflowParamsSchema, RunParamsSchema, ...evalSchemas,
  CatalogStepSchema, CatalogEvaluatorSchema, CatalogHandlerSchema, CatalogWorkflowSourceSchema, CatalogWorkflowSchema,
  WorkerDeploymentVersionSchema, VersioningOverrideSchema, CatalogRampingVersionSchema, CatalogServingVersionSchema, CatalogVersionSchema, CatalogVersionsSchema, CatalogWorkersSchema, CatalogSchema, CatalogParamsSchema, OpenApiInfoSchema, OpenApiDocumentSchema, ConditionalReadHeadersSchema, RunPreconditionHeadersSchema,
  HealthSchema, CatalogReadinessSchema, ReadinessSchema, RunStatusSchema, TerminalRunStatusSchema,
  PayloadLinkSchema, PayloadUploadSchema, WebhookRequestSchema, UpdateWithStartSchema, StartWorkflowBodySchema, RunWorkflowBodySchema, StartWorkflowHeadersSchema, RunWorkflowHeadersSchema, WorkflowStartedSchema, TraceDestinationsSchema, TraceInfoSchema, FailureCauseSchema,
  ErrorDetailsSchema, WorkflowResultSchema, WebhookDeliverySchema, WorkflowStatusSchema, WorkflowInputSchema, RunsQuerySchema, WorkflowRunsSchema,
  SignalBodySchema, QueryBodySchema, UpdateBodySchema,
  SignalParamsSchema, QueryParamsSchema, RunQueryParamsSchema, UpdateParamsSchema, SignalResultSchema, QueryResultSchema, UpdateResultSchema,
  UpdateHeadersSchema, UpdateAcceptedSchema, UpdateStateParamsSchema, UpdateStateSchema,
  StopBodySchema, StopResultSchema, TerminateBodySchema, TerminateResultSchema,
  HistoryEventSchema, HistoryWorkflowSchema, HistoryQuerySchema, HistoryPageSchema, HistoryStreamQuerySchema,
  HistoryStreamHeadersSchema, HistoryStreamDoneSchema, HistoryStreamServerErrorSchema, ...historySseSchemas, ...runsFeedSchemas,
  BatchRunFilterSchema, BatchQueryFilterSchema, BatchFilterSchema, BatchSignalSchema, BatchResetSchema, BatchBodySchema, BatchParamsSchema, BatchStartedSchema, BatchStatusSchema,
  ...traceSchemas, TraceLogSchema, RunTokenScopeSchema, RunTokenRequestSchema, RunTokenSchema, ScopeSchema, CredentialSchema, ...scheduleSchemas, ...evalRouteSchemas,
  ...deploymentSchemas, ...runVersioningSchemas
]
