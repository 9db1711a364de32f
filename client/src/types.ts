/**
 * Named aliases of the types generated from the API's OpenAPI document (generated/openapi.ts).
 * Nothing here is written by hand: every shape comes from the document.
 */
import type { components, operations, paths } from './generated/openapi.js'

export type { components, operations, paths }

type Schemas = components['schemas']

export type WorkflowResult = Schemas['WorkflowResult']
export type WorkflowStatus = Schemas['WorkflowStatus']
export type WorkflowStarted = Schemas['WorkflowStarted']
export type WorkflowInput = Schemas['WorkflowInput']
export type PayloadUpload = Schemas['PayloadUpload']
export type PayloadLink = Schemas['PayloadLink']
export type WorkflowRuns = Schemas['WorkflowRuns']
export type RunWorkflowBody = Schemas['RunWorkflowBody']
export type StartWorkflowBody = Schemas['StartWorkflowBody']
export type UpdateWithStart = Schemas['UpdateWithStart']
export type RunsQuery = Schemas['RunsQuery']
export type RunStatus = Schemas['RunStatus']
export type TerminalRunStatus = Schemas['TerminalRunStatus']
export type ErrorDetails = Schemas['ErrorDetails']
export type FailureCause = Schemas['FailureCause']
export type TraceInfo = Schemas['TraceInfo']
export type Catalog = Schemas['Catalog']
export type Readiness = Schemas['Readiness']
/** An OpenAPI 3.1 document (the per-catalog typed one: docs/catalog-openapi.md). */
export type OpenApiDocument = Schemas['OpenApiDocument']
export type CatalogWorkflow = Schemas['CatalogWorkflow']
export type TraceLog = Schemas['TraceLog']
export type Trace = Schemas['Trace']
export type HistoryEvent = Schemas['HistoryEvent']
export type HistoryWorkflow = Schemas['HistoryWorkflow']
export type HistoryPage = Schemas['HistoryPage']
export type HistoryStreamDone = Schemas['HistoryStreamDone']
export type HistoryStreamServerError = Schemas['HistoryStreamServerError']
export type StopResult = Schemas['StopResult']
export type TerminateResult = Schemas['TerminateResult']
export type ResetFrom = Schemas['ResetFrom']
export type ResetResult = Schemas['ResetResult']
export type BatchBody = Schemas['BatchBody']
export type StartEvalBody = Schemas['StartEvalBody']
export type EvalStarted = Schemas['EvalStarted']
export type EvalRun = Schemas['EvalRun']
export type EvalRuns = Schemas['EvalRuns']
export type EvalRunSummary = Schemas['EvalRunSummary']
export type EvalReport = Schemas['EvalReport']
export type EvalCaseReport = Schemas['EvalCaseReport']
export type EvalVerdict = Schemas['EvalVerdict']
export type BatchStarted = Schemas['BatchStarted']
export type BatchStatus = Schemas['BatchStatus']
export type SignalResult = Schemas['SignalResult']
export type QueryResult = Schemas['QueryResult']
export type UpdateResult = Schemas['UpdateResult']
export type UpdateAccepted = Schemas['UpdateAccepted']
export type UpdateState = Schemas['UpdateState']
export type ErrorResponse = Schemas['ErrorResponse']
export type ValidationErrorResponse = Schemas['ValidationError']
export type Issue = Schemas['Issue']
export type CreateScheduleBody = Schemas['CreateScheduleBody']
export type UpdateScheduleBody = Schemas['UpdateScheduleBody']
export type ScheduleSpec = Schemas['ScheduleSpec']
export type SchedulePolicies = Schemas['SchedulePolicies']
export type OverlapPolicy = Schemas['OverlapPolicy']
export type Schedule = Schemas['Schedule']
export type ScheduleSummary = Schemas['ScheduleSummary']
export type WorkerDeploymentVersion = Schemas['WorkerDeploymentVersion']
export type Deployment = Schemas['Deployment']
export type DeploymentSummary = Schemas['DeploymentSummary']
export type DeploymentVersionState = Schemas['DeploymentVersionState']
export type Ramp = Schemas['Ramp']
export type CallerAccess = Schemas['CallerAccess']
/** Every `error` name the API can answer with. */
export type ErrorName = ErrorResponse['error'] | ValidationErrorResponse['error']

/** One event of `FlowportClient.watchRuns()`: the SSE events of `GET /workflow/runs/stream`. */
export type RunsFeedEvent =
  /** `id` is absent on a resumed session (the client already has it): ids only go forward. */
  | { event: 'feed', id?: string, data: Schemas['RunsFeedOpen'] }
  | { event: 'expired', data: Schemas['RunsFeedExpired'] }
  | { event: 'run', id: string, data: Schemas['RunChange'] }
  /** `id` is absent while the feed has not moved since the last id. */
  | { event: 'progress', id?: string, data: Schemas['RunsFeedProgress'] }
  | { event: 'server_error', data: Schemas['RunsFeedError'] }

/** One event of `FlowportClient.follow()`: the SSE events of `GET /workflow/{id}/history/stream`. */
export type StreamEvent =
  | { event: 'workflow', data: HistoryWorkflow }
  | { event: 'history', id: string, data: HistoryEvent[] }
  | { event: 'done', id: string, data: HistoryStreamDone }
  | { event: 'server_error', data: HistoryStreamServerError }
