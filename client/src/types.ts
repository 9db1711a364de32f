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
export type WorkflowRuns = Schemas['WorkflowRuns']
export type RunWorkflowBody = Schemas['RunWorkflowBody']
export type StartWorkflowBody = Schemas['StartWorkflowBody']
export type RunsQuery = Schemas['RunsQuery']
export type RunStatus = Schemas['RunStatus']
export type TerminalRunStatus = Schemas['TerminalRunStatus']
export type ErrorDetails = Schemas['ErrorDetails']
export type FailureCause = Schemas['FailureCause']
export type TraceInfo = Schemas['TraceInfo']
export type Catalog = Schemas['Catalog']
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
export type BatchStarted = Schemas['BatchStarted']
export type BatchStatus = Schemas['BatchStatus']
export type SignalResult = Schemas['SignalResult']
export type QueryResult = Schemas['QueryResult']
export type UpdateResult = Schemas['UpdateResult']
export type ErrorResponse = Schemas['ErrorResponse']
export type ValidationErrorResponse = Schemas['ValidationError']
export type Issue = Schemas['Issue']
/** Every `error` name the API can answer with. */
export type ErrorName = ErrorResponse['error'] | ValidationErrorResponse['error']

/** One event of `FlowportClient.follow()`: the SSE events of `GET /workflow/{id}/history/stream`. */
export type StreamEvent =
  | { event: 'workflow', data: HistoryWorkflow }
  | { event: 'history', id: string, data: HistoryEvent[] }
  | { event: 'done', id: string, data: HistoryStreamDone }
  | { event: 'server_error', data: HistoryStreamServerError }
