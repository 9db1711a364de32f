/**
 * Where `flowport replay` takes its runs from, each with the version it is on and how it follows
 * new versions: the engine (a describe per run: the engine's versioning info, overrides included)
 * or history files (as the history records it). Which runs the new code will meet: docs/deploys.md,
 * "Which runs replay checks".
 */
import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import type { Client } from '@temporalio/client'
import { historyFromJSON, type History } from '@temporalio/common/lib/proto-utils.js'
import type { temporal } from '@temporalio/proto'
import type { RecordedRun } from '@flowport/worker'
import { runVersionOfInfo, type RunVersion } from '../plugins/app/engine/runs/run-version.js'
import type { WorkerDeploymentVersion } from '../schemas/deployment-version.js'
import { versionValue } from '../plugins/app/engine/deployment-version.js'
import { quote } from '../lib/visibility-query.js'

export interface VersionedRun extends RecordedRun {
  versioning: RunVersion
}

/** Open runs and those closed since `since`, of these workflow types on the catalog's task queue. */
export function replayQuery (catalogId: string, types: string[], since: Date): string {
  return `TaskQueue = ${quote(catalogId)} AND WorkflowType IN (${types.map(quote).join(', ')}) AND (ExecutionStatus = "Running" OR CloseTime >= ${quote(since.toISOString())})`
}

/**
 * The version a run is pinned to when the new code, polling as `newCode`, never meets it: a run
 * pinned (by its workflow or by an override) to any other version runs on that version's workers
 * only. null: the new code will run it (an unversioned or autoUpgrade run, or one pinned to the
 * version the new code polls as, whose workers it replaces).
 */
export function pinnedElsewhere (run: RunVersion, newCode: WorkerDeploymentVersion): WorkerDeploymentVersion | null {
  if (run.versioning !== 'pinned' || run.version === null) return null
  const same = run.version.deploymentName === newCode.deploymentName && run.version.buildId === newCode.buildId
  return same ? null : run.version
}

/** `(pinned, version main:4f0c2a9e1b7d)`, `(autoUpgrade, version …)`, `(unversioned)`. */
export function describeVersion ({ version, versioning }: RunVersion): string {
  return version === null || versioning === null ? '(unversioned)' : `(${versioning}, version ${versionValue(version)})`
}

type HistoryEvent = NonNullable<History['events']>[number]

/**
 * As the history records it: the last completed workflow task's version and behaviour, under the
 * override set at the start or changed since (the engine's own rule, plugins/app/engine/runs/run-version.ts).
 */
export function versionInHistory (events: HistoryEvent[]): RunVersion {
  let override: temporal.api.workflow.v1.IVersioningOverride | null | undefined
  let task: temporal.api.history.v1.IWorkflowTaskCompletedEventAttributes | null | undefined
  for (const e of events) {
    if (e.workflowExecutionStartedEventAttributes) override = e.workflowExecutionStartedEventAttributes.versioningOverride
    const updated = e.workflowExecutionOptionsUpdatedEventAttributes
    if (updated?.versioningOverride) override = updated.versioningOverride
    if (updated?.unsetVersioningOverride === true) override = null
    if (e.workflowTaskCompletedEventAttributes) task = e.workflowTaskCompletedEventAttributes
  }
  return runVersionOfInfo(task ? { behavior: task.versioningBehavior, deploymentVersion: task.deploymentVersion, versioningOverride: override } : null)
}

/** A history file in Temporal's JSON format; an error names the file. */
export function fromFile (file: string): VersionedRun {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    throw new Error(`${file}: cannot be read (${(e as Error).message})`)
  }
  let history: History
  try {
    history = historyFromJSON(JSON.parse(text))
  } catch (e) {
    throw new Error(`${file}: not a Temporal history in JSON (${(e as Error).message})`)
  }
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes
  if (!started) throw new Error(`${file}: not a Temporal history (its first event must be WorkflowExecutionStarted)`)
  return {
    workflowId: basename(file),
    runId: started.originalExecutionRunId ?? '?',
    workflowType: started.workflowType?.name ?? '?',
    history,
    versioning: versionInHistory(history.events ?? [])
  }
}

export interface EngineSource {
  catalogId: string
  workflows: Array<{ types: string[] }>
  since: Date
  /** Runs replayed per workflow. */
  limit: number
  /** Whether a run is left out (it never meets the new code), and why: told to `skipped`, not replayed. */
  skip: (run: RunVersion) => WorkerDeploymentVersion | null
  skipped: (version: WorkerDeploymentVersion) => void
}

/** The runs the engine lists, in its order (open ones first), each described; skipped ones count against no limit. */
export async function * fromEngine (client: Client, source: EngineSource): AsyncGenerator<VersionedRun> {
  for (const { types } of source.workflows) {
    let taken = 0
    const query = replayQuery(source.catalogId, types, source.since)
    for await (const execution of client.workflow.list({ query, pageSize: Math.min(source.limit, 1000) })) {
      const handle = client.workflow.getHandle(execution.workflowId, execution.runId)
      const versioning = runVersionOfInfo((await handle.describe()).raw.workflowExecutionInfo?.versioningInfo)
      const elsewhere = source.skip(versioning)
      if (elsewhere !== null) {
        source.skipped(elsewhere)
        continue
      }
      yield { workflowId: execution.workflowId, runId: execution.runId, workflowType: execution.type, history: await handle.fetchHistory(), versioning }
      if (++taken >= source.limit) break
    }
  }
}
