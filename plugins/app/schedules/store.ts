/**
 * Schedules as the engine keeps them (Temporal Schedules): the API holds no state. What the engine
 * does not keep verbatim (it turns cron strings into calendar structures) travels in the schedule
 * action's memo under SCHEDULE_MEMO_KEY: the spec as the client sent it, and a revision that tells
 * an update whether it was the one the engine applied (see `replaceSchedule`).
 */
import { randomUUID } from 'node:crypto'
import type { ScheduleDescription, ScheduleOptionsStartWorkflowAction, ScheduleSpec } from '@temporalio/client'
import {
  compileUpdatedScheduleOptions, encodeScheduleAction, encodeSchedulePolicies, encodeScheduleSpec, encodeScheduleState
} from '@temporalio/client/lib/schedule-helpers.js'
import { entityTags } from '../../../lib/http/conditional.js'
import { ApiError, validationError } from '../../../lib/api-error.js'
import { isReservedWorkflowId } from '../runs/execution.js'
import { isoOrNull, statusFromEngine } from '../runs/status.js'
import type { Status } from '../../../schemas/status.js'
import type { CreateScheduleBody, Schedule, ScheduleSpecBody, UpdateScheduleBody } from '../../../schemas/schedules.js'
import type { CatalogWorkflow } from '@flowport/core/contract'
import type { Engine } from '../engine/engine.js'
import { compilePolicies, compileSpec, overlapFromEngine, type EnginePolicies } from './spec.js'

/** What the schedule store needs: the engine, the default catalog, and the starts concept's check of a workflow. */
export interface ScheduleDeps {
  engine: Engine
  /** The catalog of a schedule whose body names none (SERVICE_CATALOG_ID). */
  defaultCatalog: string
  /** The catalog's workflow, its input checked against its schema (a 400 or 404 when it does not fit). */
  checkWorkflow: (catalog: string, workflowName: string, input: unknown, signal?: AbortSignal) => Promise<CatalogWorkflow>
}

export const SCHEDULE_MEMO_KEY = '__flowport_schedule'

interface ScheduleMemo { spec: ScheduleSpecBody, revision: string }

export const scheduleNotFound = (scheduleId: string) => new ApiError(404, 'ScheduleNotFoundError', `Schedule ${scheduleId} not found`)

export const scheduleConflict = (scheduleId: string, why: string) =>
  new ApiError(412, 'PreconditionFailedError', `Schedule ${scheduleId} ${why}: read it again (GET /schedules/${scheduleId}) and send its new ETag`)

interface Compiled {
  spec: ScheduleSpec
  policies: EnginePolicies
  action: ScheduleOptionsStartWorkflowAction<(input: unknown) => Promise<unknown>> & { taskQueue: string, memo: Record<string, unknown> }
  state: { paused: boolean, note?: string }
  revision: string
}

/**
 * Everything a create or update checks before the engine sees it: the spec and policies (400 naming
 * the field), the workflow and catalog (404), the input against the catalog's inputSchema (400).
 */
async function compile (deps: ScheduleDeps, scheduleId: string, body: UpdateScheduleBody, signal?: AbortSignal): Promise<Compiled> {
  // Runs are named `<scheduleId>-<time>`: an id the API reserves for itself would make them unreachable.
  if (isReservedWorkflowId(scheduleId)) throw validationError([{ path: '/scheduleId', in: 'body', message: 'is reserved (ids starting with "__flowport")' }])
  const spec = compileSpec(body.spec)
  const policies = compilePolicies(body.policies)
  const catalog = body.catalog ?? deps.defaultCatalog
  const workflow = await deps.checkWorkflow(catalog, body.workflowName, body.input, signal)
  const revision = randomUUID()
  const memo: ScheduleMemo = { spec: body.spec, revision }
  return {
    spec,
    policies,
    action: { type: 'startWorkflow', workflowType: workflow.name, taskQueue: catalog, args: [body.input], workflowId: scheduleId, memo: { [SCHEDULE_MEMO_KEY]: memo } },
    state: { paused: body.paused ?? false, note: body.note },
    revision
  }
}

export async function createSchedule (deps: ScheduleDeps, body: CreateScheduleBody, identity: string | undefined, signal?: AbortSignal): Promise<string> {
  const scheduleId = body.scheduleId ?? randomUUID()
  const { spec, policies, action, state } = await compile(deps, scheduleId, body, signal)
  await deps.engine.call(() => deps.engine.as(identity).schedule.create({ scheduleId, spec, action, policies, state }), { signal })
  return scheduleId
}

export async function describeSchedule (deps: ScheduleDeps, scheduleId: string, signal?: AbortSignal): Promise<ScheduleDescription> {
  return await deps.engine.call(() => deps.engine.client.schedule.getHandle(scheduleId).describe(), { signal })
}

/** The conflict token as an ETag: base64url, quoted (RFC 9110 strong validator). */
export const etagOf = (d: ScheduleDescription): string => `"${Buffer.from(d.raw.conflictToken ?? []).toString('base64url')}"`

/** `If-Match` names the current ETag (a weak tag by its opaque part), or is `*`: any current schedule. */
const matches = (ifMatch: string, etag: string): boolean => entityTags(ifMatch).some((tag) => tag === '*' || tag === etag)

const memoOf = (d: ScheduleDescription): ScheduleMemo | undefined => d.action.memo?.[SCHEDULE_MEMO_KEY] as ScheduleMemo | undefined

/**
 * PUT: the engine applies an update only while the conflict token it is sent is current, and drops
 * a stale one without saying so. So: the client's ETag must be the current token (else 412), the
 * update carries it, and a read-back shows whether this update's revision is the one stored; if a
 * concurrent update won the race, this one was dropped: 412, never a lost update.
 */
export async function replaceSchedule (deps: ScheduleDeps, scheduleId: string, ifMatch: string, body: UpdateScheduleBody,
  identity: string | undefined, signal?: AbortSignal): Promise<ScheduleDescription> {
  const compiled = await compile(deps, scheduleId, body, signal)
  const current = await describeSchedule(deps, scheduleId, signal)
  if (!matches(ifMatch, etagOf(current))) throw scheduleConflict(scheduleId, 'was changed since that ETag was served')
  const client = deps.engine.as(identity)
  const { namespace, loadedDataConverter } = client.options
  const options = compileUpdatedScheduleOptions(scheduleId, { spec: compiled.spec, action: compiled.action, policies: compiled.policies, state: compiled.state })
  await deps.engine.call(async () => await client.workflowService.updateSchedule({
    namespace,
    scheduleId,
    conflictToken: current.raw.conflictToken,
    identity: client.options.identity,
    requestId: randomUUID(),
    schedule: {
      spec: encodeScheduleSpec(options.spec),
      action: await encodeScheduleAction(loadedDataConverter, namespace, options.action, {}),
      policies: encodeSchedulePolicies(options.policies),
      state: encodeScheduleState(options.state)
    }
  }), { signal })
  const after = await describeSchedule(deps, scheduleId, signal)
  if (memoOf(after)?.revision !== compiled.revision) throw scheduleConflict(scheduleId, 'was changed by another update meanwhile; this one was not applied')
  return after
}

/** What a request about one stored schedule needs to know for access checks. */
export async function scheduleTarget (deps: ScheduleDeps, scheduleId: string): Promise<{ catalog: string, workflowName: string }> {
  const d = await describeSchedule(deps, scheduleId)
  return { catalog: d.action.taskQueue, workflowName: d.action.workflowType }
}

/** A run's status, or `unknown` once the engine no longer keeps it. */
async function runStatus (deps: ScheduleDeps, workflowId: string, runId: string, signal?: AbortSignal): Promise<Status> {
  try {
    const d = await deps.engine.call(() => deps.engine.client.workflow.getHandle(workflowId, runId).describe(), { signal, workflowId, runId })
    return statusFromEngine(d.status.name)
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return 'unknown'
    throw err
  }
}

/** What would make the schedule's runs fail today, as sentences; the schedule itself stays as stored. */
async function warningsOf (deps: ScheduleDeps, d: ScheduleDescription, signal?: AbortSignal): Promise<string[]> {
  const warnings: string[] = []
  if (!memoOf(d)) warnings.push('This schedule was not created through Flowport: `spec` shows its intervals and time zone only')
  try {
    await deps.checkWorkflow(d.action.taskQueue, d.action.workflowType, d.action.args?.[0] ?? null, signal)
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    if (err.error === 'EngineUnavailableError') throw err
    const issues = err.extras.issues?.map((i) => `${i.path} ${i.message}`).join('; ')
    warnings.push(issues ? `The stored input no longer matches the inputSchema of ${d.action.workflowType}: ${issues}` : err.message)
  }
  return warnings
}

/** GET /schedules/{scheduleId}: the spec as sent, the state, what is due and what ran. */
export async function scheduleView (deps: ScheduleDeps, d: ScheduleDescription, signal?: AbortSignal): Promise<Schedule> {
  const recent = d.info.recentActions.slice(-10)
  const [statuses, warnings] = await Promise.all([
    Promise.all(recent.map((a) => runStatus(deps, a.action.workflow.workflowId, a.action.workflow.firstExecutionRunId, signal))),
    warningsOf(deps, d, signal)
  ])
  const memo = memoOf(d)
  const spec: ScheduleSpecBody = memo?.spec ?? {
    every: (d.spec.intervals ?? []).map((i) => ({ interval: i.every, offset: i.offset })),
    ...(d.spec.timezone ? { timezone: d.spec.timezone } : {})
  }
  return {
    scheduleId: d.scheduleId,
    workflowName: d.action.workflowType,
    catalog: d.action.taskQueue,
    input: d.action.args?.[0] ?? null,
    spec,
    policies: {
      overlap: overlapFromEngine(d.policies.overlap),
      catchupWindow: d.policies.catchupWindow,
      pauseOnFailure: d.policies.pauseOnFailure
    },
    state: { paused: d.state.paused, note: d.state.note || null },
    nextActionTimes: d.info.nextActionTimes.slice(0, 5).map((t) => t.toISOString()),
    recentActions: recent.map((a, i) => ({
      scheduledAt: a.scheduledAt.toISOString(),
      startedAt: a.takenAt.toISOString(),
      workflowId: a.action.workflow.workflowId,
      runId: a.action.workflow.firstExecutionRunId,
      status: statuses[i]
    })),
    actionsTaken: d.info.numActionsTaken,
    actionsSkippedOverlap: d.info.numActionsSkippedOverlap,
    actionsMissedCatchupWindow: d.info.numActionsMissedCatchupWindow,
    createdAt: d.info.createdAt.toISOString(),
    updatedAt: isoOrNull(d.info.lastUpdatedAt),
    warnings
  }
}
