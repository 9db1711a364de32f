/**
 * `<ms>.s.<runId>` or `<ms>.c.<runId>`, in engine time; a bare `<ms>` is just before that
 * millisecond. Made of engine facts only, so a Last-Event-ID resumes exactly on any replica.
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

export function decodePosition (id: string): Position | undefined {
  if (!POSITION.test(id)) return undefined
  const [ms, code, runId] = id.split('.')
  const time = Number(ms)
  if (!Number.isSafeInteger(time)) return undefined
  return code === undefined ? timePosition(time) : { ms: time, rank: code === 's' ? 0 : 1, runId: runId! }
}

export function comparePositions (a: Position, b: Position): number {
  if (a.ms !== b.ms) return a.ms - b.ms
  if (a.rank !== b.rank) return a.rank - b.rank
  return a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0
}
