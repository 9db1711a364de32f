/**
 * GET /workflow/runs: one page of the engine's visibility list. Filters become a visibility
 * query with quoted, escaped values. The cursor is the engine's own page token behind a short
 * digest of token and query, as base64url: opaque, URL-safe, no server state, and a forged,
 * damaged or other-filter token is a 400 before it reaches the engine (which answers a garbage
 * token with an unhelpful UNKNOWN error).
 */
import { createHash } from 'node:crypto'
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

const badToken = () => validationError([{ path: '/pageToken', in: 'querystring', message: 'is not a nextPageToken of this listing with these filters; start again without it' }])

const DIGEST_BYTES = 8
const digest = (query: string, engineToken: Uint8Array) =>
  createHash('sha256').update(query).update('\0').update(engineToken).digest().subarray(0, DIGEST_BYTES)

export function encodePageToken (query: string, engineToken: Uint8Array): string {
  return Buffer.concat([digest(query, engineToken), engineToken]).toString('base64url')
}

export function decodePageToken (query: string, token: string): Uint8Array {
  const raw = Buffer.from(token, 'base64url')
  const engineToken = raw.subarray(DIGEST_BYTES)
  if (raw.length <= DIGEST_BYTES || !digest(query, engineToken).equals(raw.subarray(0, DIGEST_BYTES))) throw badToken()
  return engineToken
}

export async function listRuns (fastify: FastifyInstance, q: RunsQuery, signal?: AbortSignal): Promise<{ runs: WorkflowStatus[], nextPageToken: string | null }> {
  const { namespace, loadedDataConverter } = fastify.temporal.options
  const query = visibilityQuery(q)
  const nextPageToken = q.pageToken ? decodePageToken(query, q.pageToken) : undefined
  let res
  try {
    res = await fastify.engineCall(() => fastify.temporal.workflowService.listWorkflowExecutions({
      namespace, pageSize: q.pageSize, nextPageToken, query
    }), { signal })
  } catch (err) {
    if (nextPageToken && isGrpcServiceError(err) && err.code === GrpcStatus.INVALID_ARGUMENT) throw badToken()
    throw err
  }
  const runs = await Promise.all((res.executions ?? []).map(async (raw) =>
    statusOf(await executionInfoFromRaw(raw, loadedDataConverter, raw, namespace))))
  const token = res.nextPageToken?.length ? encodePageToken(query, res.nextPageToken) : null
  return { runs, nextPageToken: token }
}
