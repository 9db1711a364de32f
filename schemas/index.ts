/**
 * Every named schema, in dependency order; plugins/schemas.ts adds them all to Fastify so routes
 * can `ref()` them and the OpenAPI document lists them as components.
 */
import { ErrorResponseSchema, IssueSchema, RunParamsSchema, ValidationErrorSchema, WorkflowParamsSchema } from './common.js'
import { HealthSchema, ReadinessSchema } from './health.js'
import { RunStatusSchema, TerminalRunStatusSchema } from './status.js'
import {
  CatalogEvaluatorSchema, CatalogHandlerSchema, CatalogParamsSchema, CatalogSchema, CatalogStepSchema, CatalogWorkflowSchema
} from './catalog.js'
import {
  HistoryEventSchema, HistoryPageSchema, HistoryQuerySchema, HistoryStreamDoneSchema, HistoryStreamQuerySchema,
  HistoryStreamServerErrorSchema, HistoryWorkflowSchema
} from './history.js'
import {
  ErrorDetailsSchema, FailureCauseSchema, HandlerBodySchema, QueryParamsSchema, QueryResultSchema, RunWorkflowBodySchema, RunsQuerySchema,
  SignalParamsSchema, SignalResultSchema, StartWorkflowBodySchema, TraceInfoSchema, UpdateParamsSchema, UpdateResultSchema,
  WorkflowInputSchema, WorkflowResultSchema, WorkflowRunsSchema, WorkflowStartedSchema, WorkflowStatusSchema
} from './workflow.js'
import { StopBodySchema, StopResultSchema, TerminateBodySchema, TerminateResultSchema } from './control.js'

export const schemas = [
  IssueSchema, ErrorResponseSchema, ValidationErrorSchema, WorkflowParamsSchema, RunParamsSchema,
  HealthSchema, ReadinessSchema, RunStatusSchema, TerminalRunStatusSchema,
  CatalogStepSchema, CatalogEvaluatorSchema, CatalogHandlerSchema, CatalogWorkflowSchema, CatalogSchema, CatalogParamsSchema,
  StartWorkflowBodySchema, RunWorkflowBodySchema, WorkflowStartedSchema, TraceInfoSchema, FailureCauseSchema, ErrorDetailsSchema,
  WorkflowResultSchema, WorkflowStatusSchema, WorkflowInputSchema, RunsQuerySchema, WorkflowRunsSchema, HandlerBodySchema,
  SignalParamsSchema, QueryParamsSchema, UpdateParamsSchema, SignalResultSchema, QueryResultSchema, UpdateResultSchema,
  StopBodySchema, StopResultSchema, TerminateBodySchema, TerminateResultSchema,
  HistoryEventSchema, HistoryWorkflowSchema, HistoryQuerySchema, HistoryPageSchema, HistoryStreamQuerySchema,
  HistoryStreamDoneSchema, HistoryStreamServerErrorSchema
]
