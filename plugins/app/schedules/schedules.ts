/**
 * The engine keeps schedules; the API holds no state. The engine turns cron strings into calendar
 * structures, so the action's memo carries the spec as sent, and a revision that tells an update
 * whether the engine applied it (see `replace`).
 */
import { randomUUID } from 'node:crypto'
import type { ScheduleDescription, ScheduleHandle, ScheduleOptionsStartWorkflowAction, ScheduleSpec } from '@temporalio/client'
import {
  compileUpdatedScheduleOptions, encodeScheduleAction, encodeSchedulePolicies, encodeScheduleSpec, encodeScheduleState
} from '@temporalio/client/lib/schedule-helpers.js'
import { conflictTag, namesTag } from '../../http/conditional/entity-tags.js'
import { ApiError, ifNotFound, validationError } from '../../../lib/api-error.js'
import { decodePageToken, encodePageToken } from '../../../lib/page-token.js'
import { isReservedWorkflowId, statusFromEngine, type Engine } from '../engine/index.js'
import { isoOrNull, type Status } from '@flowport/core/run'
import type {
  CreateScheduleBody, OverlapPolicy, Schedule, ScheduleSpecBody, ScheduleSummary, SchedulesQuery, UpdateScheduleBody
} from '../../../schemas/schedules.js'
import type { CatalogWorkflow } from '@flowport/core/contract'
import { compilePolicies, compileSpec, overlapFromEngine, overlapToEngine, type EnginePolicies } from './spec.js'
import { workflowTypeOf } from '../catalogs/index.js'

export interface ScheduleDeps {
  engine: Engine
  defaultCatalog: string
  checkWorkflow: (catalog: string, workflowName: string, input: unknown, signal?: AbortSignal) => Promise<CatalogWorkflow>
  /** The action stores a declared workflow's Temporal type; clients know its name (plugins/app/catalogs/queue-catalog.ts). */
  clientName: (taskQueue: string, workflowType: string, signal?: AbortSignal) => Promise<string>
  typeFiltered: <F extends { workflowName?: string, catalog?: string }>(filters: F, signal?: AbortSignal) => Promise<F>
}

const SCHEDULE_MEMO_KEY = '__flowport_schedule'

interface ScheduleMemo { spec: ScheduleSpecBody, revision: string }

const scheduleConflict = (scheduleId: string, why: string) =>
  new ApiError(412, 'PreconditionFailedError', `Schedule ${scheduleId} ${why}: read it again (GET /schedules/${scheduleId}) and send its new ETag`)

interface Compiled {
  spec: ScheduleSpec
  policies: EnginePolicies
  action: ScheduleOptionsStartWorkflowAction<(input: unknown) => Promise<unknown>> & { taskQueue: string, memo: Record<string, unknown> }
  state: { paused: boolean, note?: string }
  revision: string
}

const memoOf = (d: ScheduleDescription): ScheduleMemo | undefined => d.action.memo?.[SCHEDULE_MEMO_KEY] as ScheduleMemo | undefined

const summaryOf = (d: ScheduleDescription, workflowName: string): ScheduleSummary => ({
  scheduleId: d.scheduleId,
  workflowName,
  catalog: d.action.taskQueue,
  state: { paused: d.state.paused, note: d.state.note || null },
  nextActionTimes: d.info.nextActionTimes.slice(0, 5).map((t) => t.toISOString())
})

export function createSchedules ({ engine, defaultCatalog, checkWorkflow, clientName, typeFiltered }: ScheduleDeps) {
  const nameOf = async (d: ScheduleDescription, signal?: AbortSignal) => await clientName(d.action.taskQueue, d.action.workflowType, signal)

  const compile = async (scheduleId: string, body: UpdateScheduleBody, signal?: AbortSignal): Promise<Compiled> => {
    // Runs are named `<scheduleId>-<time>`: an id the API reserves for itself would make them unreachable.
    if (isReservedWorkflowId(scheduleId)) throw validationError([{ path: '/scheduleId', in: 'body', message: 'is reserved (ids starting with "__flowport")' }])
    const spec = compileSpec(body.spec)
    const policies = compilePolicies(body.policies)
    const catalog = body.catalog ?? defaultCatalog
    const workflow = await checkWorkflow(catalog, body.workflowName, body.input, signal)
    const revision = randomUUID()
    const memo: ScheduleMemo = { spec: body.spec, revision }
    return {
      spec,
      policies,
      action: { type: 'startWorkflow', workflowType: workflowTypeOf(workflow), taskQueue: catalog, args: [body.input], workflowId: scheduleId, memo: { [SCHEDULE_MEMO_KEY]: memo } },
      state: { paused: body.paused ?? false, note: body.note },
      revision
    }
  }

  const describe = async (scheduleId: string, signal?: AbortSignal): Promise<ScheduleDescription> =>
    await engine.call(() => engine.client.schedule.getHandle(scheduleId).describe(), { signal })

  /** A run's status, or `unknown` once the engine no longer keeps it. */
  const runStatus = async (workflowId: string, runId: string, signal?: AbortSignal): Promise<Status> => {
    const d = await engine.call(() => engine.client.workflow.getHandle(workflowId, runId).describe(), { signal, workflowId, runId }).catch(ifNotFound(undefined))
    return d === undefined ? 'unknown' : statusFromEngine(d.status.name)
  }

  /** What would make the schedule's runs fail today, as sentences; the schedule itself stays as stored. */
  const warningsOf = async (d: ScheduleDescription, signal?: AbortSignal): Promise<string[]> => {
    const warnings: string[] = []
    if (!memoOf(d)) warnings.push('This schedule was not created through Flowport: `spec` shows its intervals and time zone only')
    try {
      await checkWorkflow(d.action.taskQueue, d.action.workflowType, d.action.args?.[0] ?? null, signal)
    } catch (err) {
      if (!(err instanceof ApiError)) throw err
      if (err.error === 'EngineUnavailableError') throw err
      const issues = err.extras.issues?.map((i) => `${i.path} ${i.message}`).join('; ')
      warnings.push(issues ? `The stored input no longer matches the inputSchema of ${d.action.workflowType}: ${issues}` : err.message)
    }
    return warnings
  }

  const tagged = async (d: ScheduleDescription, signal?: AbortSignal): Promise<{ etag: string, schedule: Schedule }> => {
    const recent = d.info.recentActions.slice(-10)
    const [statuses, warnings, workflowName] = await Promise.all([
      Promise.all(recent.map(async (a) => await runStatus(a.action.workflow.workflowId, a.action.workflow.firstExecutionRunId, signal))),
      warningsOf(d, signal),
      nameOf(d, signal)
    ])
    const spec: ScheduleSpecBody = memoOf(d)?.spec ?? {
      every: (d.spec.intervals ?? []).map((i) => ({ interval: i.every, offset: i.offset })),
      ...(d.spec.timezone ? { timezone: d.spec.timezone } : {})
    }
    const schedule: Schedule = {
      ...summaryOf(d, workflowName),
      input: d.action.args?.[0] ?? null,
      spec,
      policies: {
        overlap: overlapFromEngine(d.policies.overlap),
        catchupWindow: d.policies.catchupWindow,
        pauseOnFailure: d.policies.pauseOnFailure
      },
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
    return { etag: conflictTag(d.raw.conflictToken), schedule }
  }

  const act = async (scheduleId: string, identity: string | undefined, signal: AbortSignal | undefined, fn: (h: ScheduleHandle) => Promise<unknown>): Promise<void> => {
    await engine.call(async () => await fn(engine.as(identity).schedule.getHandle(scheduleId)), { signal })
  }

  return {
    create: async (body: CreateScheduleBody, identity: string | undefined, signal?: AbortSignal): Promise<string> => {
      const scheduleId = body.scheduleId ?? randomUUID()
      const { spec, policies, action, state } = await compile(scheduleId, body, signal)
      await engine.call(() => engine.as(identity).schedule.create({ scheduleId, spec, action, policies, state }), { signal })
      return scheduleId
    },
    /**
     * The engine's list cannot filter by workflow or catalog, so the filters apply to each page: a
     * page may hold fewer schedules than pageSize, or none, while nextPageToken says more may follow.
     */
    list: async (q: SchedulesQuery, signal?: AbortSignal): Promise<{ schedules: ScheduleSummary[], nextPageToken: string | null }> => {
      const scope = `schedules\0${q.workflowName ?? ''}\0${q.catalog ?? ''}`
      let nextPageToken: Uint8Array | undefined
      if (q.pageToken) {
        const token = decodePageToken(scope, q.pageToken)
        if (!token || token.engineToken.length === 0) throw validationError([{ path: '/pageToken', in: 'querystring', message: 'is not a nextPageToken of this listing with these filters; start again without it' }])
        nextPageToken = token.engineToken
      }
      const { namespace } = engine.client.options
      const res = await engine.call(() => engine.client.workflowService.listSchedules({ namespace, maximumPageSize: q.pageSize ?? 20, nextPageToken }), { signal })
      const { workflowName } = await typeFiltered(q, signal)
      const entries = (res.schedules ?? []).filter((s) => workflowName === undefined || s.info?.workflowType?.name === workflowName)
      const described = await Promise.all(entries.map(async (s) => await describe(s.scheduleId ?? '', signal).catch((err: unknown) => {
        // Deleted between the list and the describe.
        if (err instanceof ApiError && err.error === 'ScheduleNotFoundError') return undefined
        throw err
      })))
      const schedules = await Promise.all(described
        .filter((d): d is ScheduleDescription => d !== undefined && (q.catalog === undefined || d.action.taskQueue === q.catalog))
        .map(async (d) => summaryOf(d, await nameOf(d, signal))))
      const token = res.nextPageToken?.length ? encodePageToken(scope, { state: '', engineToken: res.nextPageToken }) : null
      return { schedules, nextPageToken: token }
    },
    read: async (scheduleId: string, signal?: AbortSignal) => await tagged(await describe(scheduleId, signal), signal),
    /**
     * The engine silently drops an update whose conflict token is stale: a read-back shows whether
     * this update's revision is stored; if a concurrent one won, 412, never a lost update.
     */
    replace: async (scheduleId: string, ifMatch: string, body: UpdateScheduleBody, identity: string | undefined, signal?: AbortSignal) => {
      const compiled = await compile(scheduleId, body, signal)
      const current = await describe(scheduleId, signal)
      if (!namesTag(ifMatch, conflictTag(current.raw.conflictToken))) throw scheduleConflict(scheduleId, 'was changed since that ETag was served')
      const client = engine.as(identity)
      const { namespace, loadedDataConverter } = client.options
      const options = compileUpdatedScheduleOptions(scheduleId, { spec: compiled.spec, action: compiled.action, policies: compiled.policies, state: compiled.state })
      await engine.call(async () => await client.workflowService.updateSchedule({
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
      const after = await describe(scheduleId, signal)
      if (memoOf(after)?.revision !== compiled.revision) throw scheduleConflict(scheduleId, 'was changed by another update meanwhile; this one was not applied')
      return await tagged(after, signal)
    },
    /** For the access plugin's check. */
    target: async (scheduleId: string): Promise<{ catalog: string, workflowName: string }> => {
      const d = await describe(scheduleId)
      return { catalog: d.action.taskQueue, workflowName: await nameOf(d) }
    },
    pause: async (scheduleId: string, note: string | undefined, identity: string | undefined, signal?: AbortSignal) =>
      await act(scheduleId, identity, signal, async (h) => await h.pause(note)),
    unpause: async (scheduleId: string, note: string | undefined, identity: string | undefined, signal?: AbortSignal) =>
      await act(scheduleId, identity, signal, async (h) => await h.unpause(note)),
    trigger: async (scheduleId: string, overlap: OverlapPolicy | undefined, identity: string | undefined, signal?: AbortSignal) =>
      await act(scheduleId, identity, signal, async (h) => await h.trigger(overlapToEngine(overlap))),
    backfill: async (scheduleId: string, { start, end, overlap }: { start: Date, end: Date, overlap?: OverlapPolicy }, identity: string | undefined, signal?: AbortSignal) =>
      await act(scheduleId, identity, signal, async (h) => await h.backfill({ start, end, overlap: overlapToEngine(overlap) })),
    remove: async (scheduleId: string, identity: string | undefined, signal?: AbortSignal) =>
      await act(scheduleId, identity, signal, async (h) => await h.delete())
  }
}

export type Schedules = ReturnType<typeof createSchedules>
