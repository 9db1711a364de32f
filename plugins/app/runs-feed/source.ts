/**
 * The engine side of the runs feed: the runs of a filter's visibility query that started or
 * closed in a window, as changes in feed order, each carrying the run's status as the engine
 * reports it when the window is read.
 */
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers.js'
import type { Execution } from '../runs/execution.js'
import { quote } from '../runs/list-runs.js'
import type { RunChange } from '../../../schemas/runs-feed.js'
import type { WorkflowStatus } from '../../../schemas/workflow.js'
import type { Engine } from '../engine/engine.js'
import type { ChangeSource, FeedChange } from './feed.js'
import { changePosition, comparePositions, encodePosition, type ChangeKind } from './position.js'

/** Visibility pages are read whole; a window holds what started or closed in one poll interval. */
const PAGE_SIZE = 1000

function frameOf (kind: ChangeKind, ms: number, run: RunChange['run']): FeedChange {
  const position = changePosition(ms, kind, run.runId)
  const change: RunChange = { change: kind, at: new Date(ms).toISOString(), run }
  return { position, frame: `id: ${encodePosition(position)}\nevent: run\ndata: ${JSON.stringify(change)}\n\n` }
}

export interface SourceDeps {
  engine: Engine
  /** A run's status, with whether a worker polls its catalog when it is open (runs concept). */
  statusOf: (execution: Execution, signal?: AbortSignal) => Promise<WorkflowStatus>
}

export function visibilityChanges ({ engine, statusOf }: SourceDeps): ChangeSource {
  return async (query, fromMs, toMs, signal) => {
    const { namespace, loadedDataConverter } = engine.client.options
    const from = quote(new Date(fromMs).toISOString())
    const to = quote(new Date(toMs).toISOString())
    const windowed = `${query} AND ((StartTime >= ${from} AND StartTime < ${to}) OR (CloseTime >= ${from} AND CloseTime < ${to}))`
    const changes: FeedChange[] = []
    let nextPageToken: Uint8Array | undefined
    do {
      const page = await engine.call(() => engine.client.workflowService.listWorkflowExecutions({
        namespace, pageSize: PAGE_SIZE, nextPageToken, query: windowed
      }), { signal })
      for (const raw of page.executions ?? []) {
        const info = await executionInfoFromRaw(raw, loadedDataConverter, raw, namespace)
        const run = await statusOf(info, signal)
        const started = info.startTime.getTime()
        const closed = info.closeTime?.getTime()
        if (started >= fromMs && started < toMs) changes.push(frameOf('started', started, run))
        if (closed !== undefined && closed >= fromMs && closed < toMs) changes.push(frameOf('closed', closed, run))
      }
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined
    } while (nextPageToken)
    return changes.sort((a, b) => comparePositions(a.position, b.position))
  }
}
