/**
 * GET /schedules: one page of the engine's schedule list, each described for its workflow,
 * catalog and next times. The engine's list cannot filter by workflow or catalog (its action
 * summary names the workflow only), so the filters apply to each page: a page may hold fewer
 * schedules than pageSize, or none, while nextPageToken says more may follow. Paging as in
 * plugins/app/runs/list-runs.ts: the engine's token, bound to the filters (lib/page-token.ts).
 */
import { ApiError, validationError } from '../../../lib/api-error.js'
import { decodePageToken, encodePageToken } from '../../../lib/page-token.js'
import type { ScheduleSummary, SchedulesQuery } from '../../../schemas/schedules.js'
import { describeSchedule, type ScheduleDeps } from './store.js'

const badToken = () => validationError([{ path: '/pageToken', in: 'querystring', message: 'is not a nextPageToken of this listing with these filters; start again without it' }])

export async function listSchedules (deps: ScheduleDeps, q: SchedulesQuery, signal?: AbortSignal): Promise<{ schedules: ScheduleSummary[], nextPageToken: string | null }> {
  const scope = `schedules\0${q.workflowName ?? ''}\0${q.catalog ?? ''}`
  let nextPageToken: Uint8Array | undefined
  if (q.pageToken) {
    const token = decodePageToken(scope, q.pageToken)
    if (!token || token.engineToken.length === 0) throw badToken()
    nextPageToken = token.engineToken
  }
  const { namespace } = deps.engine.client.options
  const res = await deps.engine.call(() => deps.engine.client.workflowService.listSchedules({ namespace, maximumPageSize: q.pageSize ?? 20, nextPageToken }), { signal })
  const entries = (res.schedules ?? []).filter((s) => q.workflowName === undefined || s.info?.workflowType?.name === q.workflowName)
  const described = await Promise.all(entries.map(async (s) => await describeSchedule(deps, s.scheduleId ?? '', signal).catch((err: unknown) => {
    // Deleted between the list and the describe.
    if (err instanceof ApiError && err.error === 'ScheduleNotFoundError') return undefined
    throw err
  })))
  const schedules: ScheduleSummary[] = []
  for (const d of described) {
    if (d === undefined || (q.catalog !== undefined && d.action.taskQueue !== q.catalog)) continue
    schedules.push({
      scheduleId: d.scheduleId,
      workflowName: d.action.workflowType,
      catalog: d.action.taskQueue,
      state: { paused: d.state.paused, note: d.state.note || null },
      nextActionTimes: d.info.nextActionTimes.slice(0, 5).map((t) => t.toISOString())
    })
  }
  const token = res.nextPageToken?.length ? encodePageToken(scope, { state: '', engineToken: res.nextPageToken }) : null
  return { schedules, nextPageToken: token }
}
