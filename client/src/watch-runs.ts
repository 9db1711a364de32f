/**
 * `watchRuns()`: the runs change feed (`GET /workflow/runs/stream`) as an async iterator that
 * resumes by itself (event-stream.ts): after a dropped connection, an API restart or the end of a
 * feed session, it reconnects after the `id:` of the last `run` or `progress` event, and the API
 * sends exactly the changes that came after it. It never ends on its own; abort `signal` to stop.
 */
import { readEventStream, type ReconnectOptions, type StreamContext } from './event-stream.js'
import type { RunsFilters } from './options.js'
import { defined, iso } from './values.js'
import type { RunsFeedEvent } from './types.js'

export interface WatchRunsOptions extends ReconnectOptions, Omit<RunsFilters, 'pageSize' | 'signal'> {}

const NAMES = new Set(['feed', 'expired', 'run', 'progress', 'server_error'])

export async function * watchRuns (context: StreamContext, opts: WatchRunsOptions = {}): AsyncGenerator<RunsFeedEvent, void, undefined> {
  const { workflowName, status, catalog, scheduleId, version, startedAfter, startedBefore } = opts
  const query = new URLSearchParams(defined({ workflowName, status, catalog, scheduleId, version, startedAfter: iso(startedAfter), startedBefore: iso(startedBefore) }) as Record<string, string>)
  const url = `${context.baseUrl}/workflow/runs/stream${query.size > 0 ? `?${query.toString()}` : ''}`
  const messages = readEventStream(context, url, opts, () => false)
  for await (const message of messages) {
    if (message.event === undefined || !NAMES.has(message.event)) continue
    yield { event: message.event, id: message.id, data: JSON.parse(message.data) } as RunsFeedEvent
  }
}
