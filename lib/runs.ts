/**
 * GET /workflow/runs: one page of the engine's visibility list. Filters become a visibility
 * query with quoted, escaped values; the engine's own page token is handed out as base64url, so
 * the cursor is opaque, URL-safe and needs no server state.
 */
import type { FastifyInstance } from 'fastify'
import { status as GrpcStatus } from '@grpc/grpc-js'
import { isGrpcServiceError } from '@temporalio/client'
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers.js'
import { CATALOG_WORKFLOW_TYPE } from '@flowport/worker/contract'
import type { RunsQuery, WorkflowStatus } from '../schemas/workflow.js'
import { validationError } from './api-error.js'
import { statusOf } from './execution.js'
import { visibilityName, type Status } from './status.js'

/** A visibility-query string literal: backslashes and double quotes escaped, so a value can never end the literal. */
export function quote (value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

export function visibilityQuery (q: Omit<RunsQuery, 'pageSize' | 'pageToken'>): string {
  // Internal runs (the published catalogs) are never listed.
  const clauses = [`WorkflowType != ${quote(CATALOG_WORKFLOW_TYPE)}`]
  if (q.workflowName !== undefined) clauses.push(`WorkflowType = ${quote(q.workflowName)}`)
  if (q.status !== undefined) clauses.push(`ExecutionStatus = ${quote(visibilityName[q.status as Exclude<Status, 'unknown'>])}`)
  if (q.catalog !== undefined) clauses.push(`TaskQueue = ${quote(q.catalog)}`)
  if (q.startedAfter !== undefined) clauses.push(`StartTime >= ${quote(new Date(q.startedAfter).toISOString())}`)
  if (q.startedBefore !== undefined) clauses.push(`StartTime < ${quote(new Date(q.startedBefore).toISOString())}`)
  return clauses.join(' AND ')
}

const badToken = () => validationError([{ path: '/pageToken', in: 'querystring', message: 'is not a page token of this listing; start again without it' }])

export async function listRuns (fastify: FastifyInstance, q: RunsQuery, signal?: AbortSignal): Promise<{ runs: WorkflowStatus[], nextPageToken: string | null }> {
  const { namespace, loadedDataConverter } = fastify.temporal.options
  const nextPageToken = q.pageToken ? Buffer.from(q.pageToken, 'base64url') : undefined
  let res
  try {
    res = await fastify.engineCall(() => fastify.temporal.workflowService.listWorkflowExecutions({
      namespace, pageSize: q.pageSize, nextPageToken, query: visibilityQuery(q)
    }), { signal })
  } catch (err) {
    if (nextPageToken && isGrpcServiceError(err) && err.code === GrpcStatus.INVALID_ARGUMENT) throw badToken()
    throw err
  }
  const runs = await Promise.all((res.executions ?? []).map(async (raw) =>
    statusOf(await executionInfoFromRaw(raw, loadedDataConverter, raw, namespace))))
  const token = res.nextPageToken?.length ? Buffer.from(res.nextPageToken).toString('base64url') : null
  return { runs, nextPageToken: token }
}
