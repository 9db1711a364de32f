/**
 * The engine lists a poller for minutes after its worker left; a live worker renews its long poll
 * at least every 60 s, so a poller seen within 70 s is alive.
 */
import type { temporal } from '@temporalio/proto'

type PollerInfo = temporal.api.taskqueue.v1.IPollerInfo

export const POLLER_RECENT_MS = 70_000

export const lastPollMs = (p: PollerInfo): number =>
  Number(p.lastAccessTime?.seconds ?? 0) * 1000 + Math.floor((p.lastAccessTime?.nanos ?? 0) / 1e6)

export const isAlive = (p: PollerInfo, now = Date.now()): boolean => now - lastPollMs(p) < POLLER_RECENT_MS
