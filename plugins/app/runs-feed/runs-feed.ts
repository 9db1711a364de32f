/** Each change carries the run's status as the engine reports it when the window is read. */
import type { FastifyBaseLogger } from 'fastify'
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers.js'
import { optionalTsToMs } from '@temporalio/common/lib/time.js'
import type { StreamRegistry } from '../../external/sse/streams.js'
import { SharedPolls } from '../../../lib/shared-poll.js'
import type { RunChange } from '../../../schemas/runs-feed.js'
import type { WorkflowStatus } from '../../../schemas/workflow.js'
import type { Engine } from '../engine/index.js'
import { type Execution, STATUS_LOOKUPS } from '../runs/index.js'
import { quote } from '../../../lib/visibility-query.js'
import { ApiError, STREAM_RETRY_AFTER_SECONDS } from '../../../lib/api-error.js'
import { mapBounded } from '@flowport/core/bounded'
import { EngineClock, type NewestTimes } from './engine-clock.js'
import { RunsFeed, type ChangeSource, type FeedChange, type FeedOptions, type FeedSink, type Joined } from './feed.js'
import { comparePositions, encodePosition, timePosition, type ChangeKind, type Position } from './position.js'
import { streamRunsFeed, type FeedSession } from './stream.js'

/** Visibility pages are read whole; a window holds what started or closed in one poll interval. */
const PAGE_SIZE = 1000

export interface RunsFeedDeps {
  engine: Engine
  statusOf: (execution: Execution, signal?: AbortSignal) => Promise<WorkflowStatus>
  streams: StreamRegistry
  options: FeedOptions
  log: FastifyBaseLogger
  localClock?: () => number
}

function frameOf (kind: ChangeKind, ms: number, run: RunChange['run']): FeedChange {
  const position: Position = { ms, rank: kind === 'started' ? 0 : 1, runId: run.runId }
  const change: RunChange = { change: kind, at: new Date(ms).toISOString(), run }
  return { position, frame: `id: ${encodePosition(position)}\nevent: run\ndata: ${JSON.stringify(change)}\n\n` }
}

function visibilityChanges ({ engine, statusOf, clock }: Pick<RunsFeedDeps, 'engine' | 'statusOf'> & { clock: EngineClock }): ChangeSource {
  return async (query, fromMs, toMs, signal) => {
    const { namespace, loadedDataConverter } = engine.client.options
    const from = quote(new Date(fromMs).toISOString())
    const windowed = Number.isFinite(toMs)
      ? `${query} AND ((StartTime >= ${from} AND StartTime < ${quote(new Date(toMs).toISOString())}) OR (CloseTime >= ${from} AND CloseTime < ${quote(new Date(toMs).toISOString())}))`
      : `${query} AND (StartTime >= ${from} OR CloseTime >= ${from})`
    const changes: FeedChange[] = []
    let nextPageToken: Uint8Array | undefined
    do {
      const page = await engine.call(() => engine.client.workflowService.listWorkflowExecutions({
        namespace, pageSize: PAGE_SIZE, nextPageToken, query: windowed
      }), { signal })
      const runs = await mapBounded(page.executions ?? [], STATUS_LOOKUPS, async (raw) => {
        const info = await executionInfoFromRaw(raw, loadedDataConverter, raw, namespace)
        return { info, run: await statusOf(info, signal) }
      })
      for (const { info, run } of runs) {
        const started = info.startTime.getTime()
        const closed = info.closeTime?.getTime()
        clock.saw(closed ?? started)
        if (started >= fromMs && started < toMs) changes.push(frameOf('started', started, run))
        if (closed !== undefined && closed >= fromMs && closed < toMs) changes.push(frameOf('closed', closed, run))
      }
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined
    } while (nextPageToken)
    return changes.sort((a, b) => comparePositions(a.position, b.position))
  }
}

/** The engine lists open runs newest start first, then closed ones newest close first. */
function newestTimes (engine: Engine): NewestTimes {
  return async (signal) => {
    const { namespace } = engine.client.options
    const newest = async (query: string) => (await engine.call(() => engine.client.workflowService.listWorkflowExecutions({ namespace, pageSize: 1, query }), { signal })).executions ?? []
    const [open, closed] = await Promise.all([newest('ExecutionStatus = "Running"'), newest('ExecutionStatus != "Running"')])
    return [...open.map((e) => optionalTsToMs(e.startTime)), ...closed.map((e) => optionalTsToMs(e.closeTime))].filter((t) => t !== undefined)
  }
}

export function createRunsFeed ({ engine, statusOf, streams, options, log, localClock }: RunsFeedDeps) {
  const clock = new EngineClock(newestTimes(engine), localClock)
  const source = visibilityChanges({ engine, statusOf, clock })
  const feeds = new SharedPolls<RunsFeed>()
  /** Streams refused at SERVICE_RUNS_FEED_MAX_FEEDS since start. */
  let refused = 0
  const join = (query: string, resume: Position | undefined, sink: FeedSink): Joined => {
    if (options.maxFeeds > 0 && feeds.size >= options.maxFeeds && !feeds.has(query)) {
      refused++
      throw new ApiError(503, 'StreamCapacityError', `This replica polls ${feeds.size} runs feeds, one per distinct filter set, its most (SERVICE_RUNS_FEED_MAX_FEEDS); ` +
        'retry later, or use the filters of a feed already open (fewer filters, filter on your side)', { headers: { 'retry-after': STREAM_RETRY_AFTER_SECONDS } })
    }
    const feed = feeds.of(query, (onEnd) => new RunsFeed(query, source, options, log, onEnd, clock))
    feed.subscribers.add(sink)
    const live = timePosition(feed.frontier)
    if (resume === undefined) return { feed, position: live, expired: false }
    if (resume.ms < clock.now() - options.resumeMs) return { feed, position: live, expired: true }
    return { feed, position: resume, expired: false }
  }
  return {
    get size () { return feeds.size },
    get refused () { return refused },
    stream: async (session: FeedSession) => { await streamRunsFeed({ join, options, streams, clock }, session) },
    /** After the SSE plugin's preClose has ended the streams. */
    close: () => { for (const feed of feeds.values()) feed.close() }
  }
}

export type RunsFeedService = ReturnType<typeof createRunsFeed>
