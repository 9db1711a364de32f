/**
 * The schedules service: schedules as the engine keeps them (store.ts), listed (list.ts), checked
 * and compiled (spec.ts), and the engine's schedule operations.
 */
import type { ScheduleDescription, ScheduleHandle } from '@temporalio/client'
import type { CreateScheduleBody, OverlapPolicy, SchedulesQuery, UpdateScheduleBody } from '../../../schemas/schedules.js'
import { listSchedules } from './list.js'
import { overlapToEngine } from './spec.js'
import { createSchedule, describeSchedule, etagOf, replaceSchedule, scheduleTarget, scheduleView, type ScheduleDeps } from './store.js'

export function createSchedules (deps: ScheduleDeps) {
  const { engine } = deps
  const act = async (scheduleId: string, identity: string | undefined, signal: AbortSignal | undefined, fn: (h: ScheduleHandle) => Promise<unknown>): Promise<void> => {
    await engine.call(async () => await fn(engine.as(identity).schedule.getHandle(scheduleId)), { signal })
  }
  /** A schedule as answered, with its `ETag` (the engine's conflict token). */
  const tagged = async (d: ScheduleDescription, signal?: AbortSignal) => ({ etag: etagOf(d), schedule: await scheduleView(deps, d, signal) })
  return {
    create: async (body: CreateScheduleBody, identity: string | undefined, signal?: AbortSignal) => await createSchedule(deps, body, identity, signal),
    list: async (q: SchedulesQuery, signal?: AbortSignal) => await listSchedules(deps, q, signal),
    read: async (scheduleId: string, signal?: AbortSignal) => await tagged(await describeSchedule(deps, scheduleId, signal), signal),
    /** A full replacement guarded by If-Match (store.ts `replaceSchedule`). */
    replace: async (scheduleId: string, ifMatch: string, body: UpdateScheduleBody, identity: string | undefined, signal?: AbortSignal) =>
      await tagged(await replaceSchedule(deps, scheduleId, ifMatch, body, identity, signal), signal),
    /** The catalog and workflow a stored schedule starts (the access plugin checks them). */
    target: async (scheduleId: string) => await scheduleTarget(deps, scheduleId),
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
