/**
 * The schedules service: schedules as the engine keeps them (store.ts), listed (list.ts), checked
 * and compiled (spec.ts), and the engine's schedule operations.
 */
import type { ScheduleDescription } from '@temporalio/client'
import type { CreateScheduleBody, OverlapPolicy, Schedule, ScheduleSummary, SchedulesQuery, UpdateScheduleBody } from '../../../schemas/schedules.js'
import { listSchedules } from './list.js'
import { overlapToEngine } from './spec.js'
import { createSchedule, describeSchedule, etagOf, replaceSchedule, scheduleTarget, scheduleView, type ScheduleDeps } from './store.js'

/** A schedule as answered, with its `ETag` (the engine's conflict token). */
export interface TaggedSchedule { etag: string, schedule: Schedule }

export interface Schedules {
  create: (body: CreateScheduleBody, identity: string | undefined, signal?: AbortSignal) => Promise<string>
  list: (q: SchedulesQuery, signal?: AbortSignal) => Promise<{ schedules: ScheduleSummary[], nextPageToken: string | null }>
  read: (scheduleId: string, signal?: AbortSignal) => Promise<TaggedSchedule>
  /** A full replacement guarded by If-Match (store.ts `replaceSchedule`). */
  replace: (scheduleId: string, ifMatch: string, body: UpdateScheduleBody, identity: string | undefined, signal?: AbortSignal) => Promise<TaggedSchedule>
  /** The catalog and workflow a stored schedule starts (the access plugin checks them). */
  target: (scheduleId: string) => Promise<{ catalog: string, workflowName: string }>
  pause: (scheduleId: string, note: string | undefined, identity: string | undefined, signal?: AbortSignal) => Promise<void>
  unpause: (scheduleId: string, note: string | undefined, identity: string | undefined, signal?: AbortSignal) => Promise<void>
  trigger: (scheduleId: string, overlap: OverlapPolicy | undefined, identity: string | undefined, signal?: AbortSignal) => Promise<void>
  backfill: (scheduleId: string, range: { start: Date, end: Date, overlap?: OverlapPolicy }, identity: string | undefined, signal?: AbortSignal) => Promise<void>
  remove: (scheduleId: string, identity: string | undefined, signal?: AbortSignal) => Promise<void>
}

export function createSchedules (deps: ScheduleDeps): Schedules {
  const { engine } = deps
  const handle = (scheduleId: string, identity: string | undefined) => engine.as(identity).schedule.getHandle(scheduleId)
  const tagged = async (d: ScheduleDescription, signal?: AbortSignal): Promise<TaggedSchedule> =>
    ({ etag: etagOf(d), schedule: await scheduleView(deps, d, signal) })
  return {
    create: async (body, identity, signal) => await createSchedule(deps, body, identity, signal),
    list: async (q, signal) => await listSchedules(deps, q, signal),
    read: async (scheduleId, signal) => await tagged(await describeSchedule(deps, scheduleId, signal), signal),
    replace: async (scheduleId, ifMatch, body, identity, signal) =>
      await tagged(await replaceSchedule(deps, scheduleId, ifMatch, body, identity, signal), signal),
    target: async (scheduleId) => await scheduleTarget(deps, scheduleId),
    pause: async (scheduleId, note, identity, signal) => { await engine.call(() => handle(scheduleId, identity).pause(note), { signal }) },
    unpause: async (scheduleId, note, identity, signal) => { await engine.call(() => handle(scheduleId, identity).unpause(note), { signal }) },
    trigger: async (scheduleId, overlap, identity, signal) => { await engine.call(() => handle(scheduleId, identity).trigger(overlapToEngine(overlap)), { signal }) },
    backfill: async (scheduleId, { start, end, overlap }, identity, signal) => {
      await engine.call(() => handle(scheduleId, identity).backfill({ start, end, overlap: overlapToEngine(overlap) }), { signal })
    },
    remove: async (scheduleId, identity, signal) => { await engine.call(() => handle(scheduleId, identity).delete(), { signal }) }
  }
}
