/** The page token (lib/page-token.ts) is bound to the query: a forged or other-filter token is a 400 before the engine. */
import { status as GrpcStatus } from '@grpc/grpc-js'
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers.js'
import type { RunsQuery, WorkflowStatus } from '../../../schemas/workflow.js'
import { validationError } from '../../../lib/api-error.js'
import { STATUS_LOOKUPS, type ExecutionReads } from './execution.js'
import { mapBounded } from '@flowport/core/bounded'
import { decodePageToken, encodePageToken } from '../../../lib/page-token.js'
import { INTERNAL_RUNS_EXCLUDED, quote } from '../../../lib/visibility-query.js'
import { grpcCode, visibilityName } from '../engine/index.js'
import type { Status } from '@flowport/core/run'
import type { RunsContext } from './deps.js'

export function visibilityQuery (q: Omit<RunsQuery, 'pageSize' | 'pageToken'>): string {
  const clauses = [...INTERNAL_RUNS_EXCLUDED]
  if (q.workflowName !== undefined) clauses.push(`WorkflowType = ${quote(q.workflowName)}`)
  if (q.status !== undefined) clauses.push(`ExecutionStatus = ${quote(visibilityName[q.status as Exclude<Status, 'unknown'>])}`)
  if (q.catalog !== undefined) clauses.push(`TaskQueue = ${quote(q.catalog)}`)
  if (q.scheduleId !== undefined) clauses.push(`TemporalScheduledById = ${quote(q.scheduleId)}`)
  // The search attribute's value is the version as the filter names it, `<deploymentName>:<buildId>`.
  if (q.version !== undefined) clauses.push(`TemporalWorkerDeploymentVersion = ${quote(q.version)}`)
  if (q.startedAfter !== undefined) clauses.push(`StartTime >= ${quote(instant(q.startedAfter))}`)
  if (q.startedBefore !== undefined) clauses.push(`StartTime < ${quote(instant(q.startedBefore))}`)
  return clauses.join(' AND ')
}

// `date-time` as the schema's Ajv accepts it: `T`, `t` or whitespace, offsets `Z`/`±hh`/`±hhmm`/`±hh:mm`, a leap second.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt\s](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)$/

/** The engine parses four-digit years only; no run starts outside them, so clamping changes no answer. */
const EARLIEST = Date.parse('0000-01-01T00:00:00.000Z')
const LATEST = Date.parse('9999-12-31T23:59:59.999Z')

/**
 * `Date` cannot parse some accepted values (`…T23:59:60Z`, `+05`): a leap second is one second
 * after `…:59`, as the engine counts. An offset can push year 0000 or 9999 out of four digits: clamped.
 */
export function instant (value: string): string {
  const m = DATE_TIME.exec(value)
  if (!m) throw validationError([{ path: '/', in: 'querystring', message: `${value} is not an RFC 3339 date-time` }])
  const [, year, month, day, hour, minute, second, fraction, sign, offsetHours, offsetMinutes] = m
  const date = new Date(Date.UTC(2000, Number(month) - 1, Number(day), Number(hour), Number(minute), Math.min(Number(second), 59)))
  // Date.UTC maps years 0–99 to 1900–1999; the year is set on its own (the schema checked the day exists in it).
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day))
  const offsetMs = sign ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes ?? 0)) * 60_000 : 0
  const leapMs = Number(second) === 60 ? 1000 : 0
  const fractionMs = fraction ? Math.floor(Number(fraction) * 1000) : 0
  return new Date(Math.min(Math.max(date.getTime() + leapMs + fractionMs - offsetMs, EARLIEST), LATEST)).toISOString()
}

const badToken = () => validationError([{ path: '/pageToken', in: 'querystring', message: 'is not a nextPageToken of this listing with these filters; start again without it' }])

function engineTokenOf (query: string, value: string): Uint8Array {
  const token = decodePageToken(query, value)
  if (!token || token.state !== '' || token.engineToken.length === 0) throw badToken()
  return token.engineToken
}

export function listReads ({ engine, catalogs, statusWithWorkers }: RunsContext & ExecutionReads) {
  async function listRuns (q: RunsQuery, signal?: AbortSignal): Promise<{ runs: WorkflowStatus[], nextPageToken: string | null }> {
    const { namespace, loadedDataConverter } = engine.client.options
    const query = visibilityQuery(await catalogs.typeFiltered(q, signal))
    const nextPageToken = q.pageToken ? engineTokenOf(query, q.pageToken) : undefined
    let res
    try {
      res = await engine.call(() => engine.client.workflowService.listWorkflowExecutions({
        namespace, pageSize: q.pageSize ?? 50, nextPageToken, query
      }), { signal })
    } catch (err) {
      if (nextPageToken && grpcCode(err) === GrpcStatus.INVALID_ARGUMENT) throw badToken()
      throw err
    }
    const runs = await mapBounded(res.executions ?? [], STATUS_LOOKUPS, async (raw) =>
      await statusWithWorkers(await executionInfoFromRaw(raw, loadedDataConverter, raw, namespace), signal))
    const token = res.nextPageToken?.length ? encodePageToken(query, { state: '', engineToken: res.nextPageToken }) : null
    return { runs, nextPageToken: token }
  }

  return { listRuns }
}
