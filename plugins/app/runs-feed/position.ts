/**
 * Positions in the runs change feed. A change is a run's start or close, placed by its engine
 * time: `<ms>.s.<runId>` or `<ms>.c.<runId>` (ms since the epoch, then start before close, then
 * run id). A bare `<ms>` is the position just before every change of that millisecond. Every frame
 * names its position as its SSE `id:`, so a client that comes back with Last-Event-ID gets exactly
 * the changes after it, from any replica: the position is made of engine facts only.
 */
import { POSITION_PATTERN } from '../../../schemas/runs-feed.js'

export type ChangeKind = 'started' | 'closed'

export interface Position {
  ms: number
  /** -1: before every change of `ms`; 0: a start; 1: a close. */
  rank: -1 | 0 | 1
  runId: string
}

const POSITION = new RegExp(POSITION_PATTERN)

export const timePosition = (ms: number): Position => ({ ms, rank: -1, runId: '' })

export function encodePosition ({ ms, rank, runId }: Position): string {
  return rank === -1 ? String(ms) : `${ms}.${rank === 0 ? 's' : 'c'}.${runId}`
}

/** The position an id names; undefined when it is not an id of this feed. */
export function decodePosition (id: string): Position | undefined {
  if (!POSITION.test(id)) return undefined
  const [ms, code, runId] = id.split('.')
  const time = Number(ms)
  if (!Number.isSafeInteger(time)) return undefined
  return code === undefined ? timePosition(time) : { ms: time, rank: code === 's' ? 0 : 1, runId: runId! }
}

/** Feed order: time, then start before close, then run id. */
export function comparePositions (a: Position, b: Position): number {
  if (a.ms !== b.ms) return a.ms - b.ms
  if (a.rank !== b.rank) return a.rank - b.rank
  return a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0
}
