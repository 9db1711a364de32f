/**
 * Replays recorded histories against a workflow bundle with the SDK's replayer, as a worker with
 * the new code would when it picks up a run: a run whose history the code no longer reproduces
 * comes back with the replayer's error (`flowport replay`, docs/versioning.md).
 */
import type { History } from '@temporalio/common/lib/proto-utils.js'
import type { DataConverter } from '@temporalio/common'
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker'

export interface RecordedRun {
  workflowId: string
  runId: string
  workflowType: string
  history: History
}

export interface ReplayOutcome<R extends RecordedRun = RecordedRun> {
  run: R
  /** null: the code reproduced the history. */
  divergence: null | {
    /** A determinism violation (the code issues other commands), or another failure of the replay. */
    kind: 'nondeterminism' | 'failure'
    /** The replayer's reason, without its generic preamble. */
    message: string
    /** The first history event the code no longer matches, when the reason lets it be found. */
    event: null | { id: number, what: string }
  }
}

/**
 * The reason the SDK's core gives, taken out of the wrapping it arrives in ("Replay failed with a
 * nondeterminism error. This means … Failure { failure: Some(Failure { message: "…" …").
 */
export function replayReason (message: string): string {
  const inner = /message: "((?:[^"\\]|\\.)*)"/.exec(message)
  return inner === null ? message : inner[1].replaceAll('\\"', '"')
}

type HistoryEvent = NonNullable<History['events']>[number]

/**
 * The event a reason names. The core says `HistoryEvent(id: 5, …)` for most mismatches; for an
 * activity of another type it names the recorded event's activity type only
 * (`Activity type of scheduled event 'x' does not match …`): the first such scheduled event.
 */
export function divergingEvent (reason: string, events: HistoryEvent[]): { id: number, what: string } | null {
  const byId = /HistoryEvent\(id: (\d+), (\w+)/.exec(reason)
  if (byId !== null) return { id: Number(byId[1]), what: byId[2] }
  const activity = /scheduled event '([^']+)'/.exec(reason)
  if (activity === null) return null
  const found = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === activity[1])
  return found === undefined ? null : { id: Number(found.eventId), what: `ActivityTaskScheduled ${activity[1]}` }
}

/** Each outcome carries the run as given, so what the caller knows of it (its version) comes back with it. */
export async function * replayRuns<R extends RecordedRun> (
  workflowBundle: WorkflowBundleWithSourceMap,
  runs: AsyncIterable<R> | Iterable<R>,
  dataConverter?: DataConverter
): AsyncGenerator<ReplayOutcome<R>> {
  // The replayer reports results by workflow id; runs are keyed by a unique id so two runs of one
  // workflow id (a reset, a continue-as-new) stay apart.
  const byKey = new Map<string, R>()
  async function * histories (): AsyncGenerator<{ workflowId: string, history: History }> {
    for await (const run of runs) {
      const key = `${byKey.size}`
      byKey.set(key, run)
      yield { workflowId: key, history: run.history }
    }
  }
  for await (const result of Worker.runReplayHistories({ workflowBundle, ...(dataConverter === undefined ? {} : { dataConverter }) }, histories())) {
    const run = byKey.get(result.workflowId)
    if (run === undefined) continue
    byKey.delete(result.workflowId)
    if (result.error === undefined) {
      yield { run, divergence: null }
      continue
    }
    const message = replayReason(result.error.message)
    const kind = result.error.name === 'DeterminismViolationError' ? 'nondeterminism' : 'failure'
    yield { run, divergence: { kind, message, event: divergingEvent(message, run.history.events ?? []) } }
  }
}
