/**
 * Which of the pollers the engine lists for a task queue are alive. The engine keeps a poller in
 * its list for minutes after the worker left; a worker holds a long poll on its task queue and
 * renews it at least every minute (the engine answers an idle poll after 60 s), so a poller seen
 * within 70 s is alive, and one that was killed drops out within 70 s.
 */
import type { temporal } from '@temporalio/proto'

type PollerInfo = temporal.api.taskqueue.v1.IPollerInfo

export const POLLER_RECENT_MS = 70_000

/** When the poller last polled (ms since the epoch; 0 when the engine does not say). */
export const lastPollMs = (p: PollerInfo): number =>
  Number(p.lastAccessTime?.seconds ?? 0) * 1000 + Math.floor((p.lastAccessTime?.nanos ?? 0) / 1e6)

export const isAlive = (p: PollerInfo, now = Date.now()): boolean => now - lastPollMs(p) < POLLER_RECENT_MS
