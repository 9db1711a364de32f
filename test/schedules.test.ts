/**
 * Schedules against the real engine: runs on a clock, pause/unpause, trigger, backfill, overlap
 * policies, time zones (next times checked with cron-parser, a cron library independent of the
 * engine and of the API), the ETag guard, deletion, every error case, and a schedule that outlives
 * an engine restart and an API restart. Waits are bounded polls of the schedule's own record
 * (`eventually`), never a timing assertion.
 */
import t from 'tap'
import type { Test } from 'tap'
import { CronExpressionParser } from 'cron-parser'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, eventually, newId, waitClosed } from './helpers/workflows.js'
import { ownEngine } from './helpers/own-engine.js'
import { sleep, until } from './helpers/processes.js'

const route = {
  list: '/schedules',
  one: '/schedules/{scheduleId}',
  action: (verb: string) => `/schedules/{scheduleId}/${verb}`
}

async function create (t: Test, app: App, body: Record<string, unknown>) {
  return await call(t, app, { method: 'POST', url: '/schedules', route: route.list, payload: body })
}

async function created (t: Test, app: App, body: Record<string, unknown>, { cleanup = true } = {}): Promise<string> {
  const scheduleId = newId('sched')
  const res = await create(t, app, { scheduleId, ...body })
  t.equal(res.status, 201, `created ${scheduleId}`)
  t.equal(res.headers.location, `/schedules/${scheduleId}`)
  // Schedules outlive the test's app: the shared engine would go on starting their runs.
  if (cleanup) t.teardown(async () => { await app.engine.client.schedule.getHandle(scheduleId).delete().catch(() => undefined) })
  return scheduleId
}

const get = async (t: Test, app: App, id: string) => await call(t, app, { method: 'GET', url: `/schedules/${encodeURIComponent(id)}`, route: route.one })
const act = async (t: Test, app: App, id: string, verb: string, payload?: unknown) =>
  await call(t, app, { method: 'POST', url: `/schedules/${encodeURIComponent(id)}/${verb}`, route: route.action(verb), payload })
const runsOf = async (t: Test, app: App, scheduleId: string) =>
  await call(t, app, { method: 'GET', url: `/workflow/runs?scheduleId=${encodeURIComponent(scheduleId)}&pageSize=1000`, route: '/workflow/runs' })

/** Polls the schedule until `done` holds (bounded: 120 reads, 250 ms apart). */
async function scheduleUntil (t: Test, app: App, id: string, done: (s: any) => boolean) {
  const res = await eventually(async () => await get(t, app, id), (r) => r.status === 200 && done(r.body), 120)
  return res.body
}

const hello = { workflowName: 'hello', input: { name: 'Ada' } }

t.test('every 2 s: runs start, are listed by scheduleId with their results; pause, unpause, trigger; delete leaves runs alone', async (t) => {
  const app = await build(t)
  const id = await created(t, app, { ...hello, spec: { every: [{ interval: '2s' }] } })

  const two = await scheduleUntil(t, app, id, (s) => s.actionsTaken >= 2)
  t.ok(two.actionsTaken >= 2, 'two runs started')
  t.equal(two.workflowName, 'hello')
  t.equal(two.catalog, process.env.FLOWPORT_TEST_CATALOG)
  t.same(two.spec, { every: [{ interval: '2s' }] }, 'the spec as sent')
  t.same(two.policies, { overlap: 'skip', catchupWindow: two.policies.catchupWindow, pauseOnFailure: false })
  t.equal(two.nextActionTimes.length, 5)
  t.ok(two.nextActionTimes.every((at: string) => Date.parse(at) % 2000 === 0), 'due on 2 s boundaries')
  t.same(two.warnings, [])

  const first = two.recentActions[0]
  t.ok(first.workflowId.startsWith(`${id}-`), 'runs are named after the schedule')
  await waitClosed(app, first.workflowId, first.runId)
  const result = await call(t, app, { method: 'GET', url: `/workflow/${encodeURIComponent(first.workflowId)}/result`, route: '/workflow/{id}/result' })
  t.equal(result.status, 200)
  t.same(result.body.output, { greeting: 'Hello, Ada!' }, 'a scheduled run\'s result is readable')

  const listed = await eventually(async () => await runsOf(t, app, id), (r) => r.body.runs.length >= 2)
  t.ok(listed.body.runs.length >= 2, 'GET /workflow/runs?scheduleId= lists them')
  t.ok(listed.body.runs.every((r: any) => r.scheduleId === id && r.workflowId.startsWith(`${id}-`)), 'only this schedule\'s runs')
  const status = await call(t, app, { method: 'GET', url: `/workflow/${encodeURIComponent(first.workflowId)}/status`, route: '/workflow/{id}/status' })
  t.equal(status.body.scheduleId, id, 'the status names the schedule')
  t.equal(status.body.scheduledAt, first.scheduledAt, 'and when the run was due')
  t.equal(status.body.delayedUntil, null)

  // Pause: nothing starts for three intervals. (The wait only gives the engine the chance to start
  // one; the assertion is on the schedule's own count.)
  const paused = await act(t, app, id, 'pause', { note: 'maintenance' })
  t.equal(paused.status, 204)
  const atPause = (await get(t, app, id)).body
  t.same(atPause.state, { paused: true, note: 'maintenance' })
  await sleep(6000)
  const still = (await get(t, app, id)).body
  t.equal(still.actionsTaken, atPause.actionsTaken, 'no run starts while paused')

  // Trigger starts one at once, paused or not.
  t.equal((await act(t, app, id, 'trigger')).status, 204)
  const triggered = await scheduleUntil(t, app, id, (s) => s.actionsTaken === atPause.actionsTaken + 1)
  t.equal(triggered.actionsTaken, atPause.actionsTaken + 1, 'trigger started one run')
  t.equal(triggered.state.paused, true, 'and the schedule stays paused')

  t.equal((await act(t, app, id, 'unpause', {})).status, 204)
  const resumed = await scheduleUntil(t, app, id, (s) => s.actionsTaken >= triggered.actionsTaken + 2)
  t.ok(resumed.actionsTaken >= triggered.actionsTaken + 2, 'unpaused: runs start again')
  t.equal(resumed.state.paused, false)

  const lastRun = resumed.recentActions.at(-1)
  const del = await call(t, app, { method: 'DELETE', url: `/schedules/${id}`, route: route.one })
  t.equal(del.status, 204)
  const gone = await get(t, app, id)
  t.equal(gone.status, 404)
  t.equal(gone.body.error, 'ScheduleNotFoundError')
  const after = await call(t, app, { method: 'GET', url: `/workflow/${encodeURIComponent(lastRun.workflowId)}/runs/${lastRun.runId}/status`, route: '/workflow/{id}/runs/{rid}/status' })
  t.equal(after.status, 200, 'a run the schedule started is still there after the delete')
  t.equal(after.body.scheduleId, id)
})

t.test('backfill of a past 60 s range at every 10 s with allowAll starts 6 runs', async (t) => {
  const app = await build(t)
  const id = await created(t, app, { ...hello, spec: { every: [{ interval: '10s' }] }, paused: true })
  // The 60 s before `end` (a 10 s boundary, well in the past); both ends of a range are inclusive,
  // so it ends 1 ms before `end`: due at end−60 s … end−10 s.
  const end = Math.floor(Date.now() / 10_000) * 10_000 - 60_000
  const res = await act(t, app, id, 'backfill', { startAt: new Date(end - 60_000).toISOString(), endAt: new Date(end - 1).toISOString(), overlap: 'allowAll' })
  t.equal(res.status, 204)
  const s = await scheduleUntil(t, app, id, (s) => s.actionsTaken >= 6)
  // Give a seventh run, if the range were off by one, the chance to show.
  await sleep(1000)
  const settled = (await get(t, app, id)).body
  t.equal(settled.actionsTaken, 6, 'six runs')
  const due = settled.recentActions.map((a: any) => Date.parse(a.scheduledAt)).sort()
  t.same(due, [60, 50, 40, 30, 20, 10].map((back) => end - back * 1000), 'one per 10 s of the range')
  t.equal(s.state.paused, true, 'a backfill runs on a paused schedule')
  const bad = await act(t, app, id, 'backfill', { startAt: new Date(end).toISOString(), endAt: new Date(end - 1000).toISOString() })
  t.equal(bad.status, 400)
  t.equal(bad.body.issues[0].path, '/endAt')
})

t.test('overlap: skip skips while a run is open (counted by the schedule); bufferOne buffers one', async (t) => {
  const app = await build(t)
  // Each run takes about 5 s (two ticks 5 s apart); one is due every 2 s.
  const sleepy = { workflowName: 'sleepy', input: { steps: 2, delayMs: 5000 }, spec: { every: [{ interval: '2s' }] } }
  const skip = await created(t, app, { ...sleepy, policies: { overlap: 'skip' } })
  const buffer = await created(t, app, { ...sleepy, policies: { overlap: 'bufferOne' } })

  const skipped = await scheduleUntil(t, app, skip, (s) => s.actionsSkippedOverlap >= 2)
  t.ok(skipped.actionsSkippedOverlap >= 2, 'skip: due runs are skipped while one is open')
  t.equal(skipped.actionsTaken, 1, 'skip: one run only so far')

  // bufferOne: while the first run is open, one due run waits in the buffer, later ones are dropped;
  // the buffered one starts when the first closes.
  const buffered = await scheduleUntil(t, app, buffer, (s) => s.actionsTaken >= 2)
  await act(t, app, skip, 'pause')
  await act(t, app, buffer, 'pause')
  const [firstRun, secondRun] = buffered.recentActions
  const first = await app.engine.client.workflow.getHandle(firstRun.workflowId, firstRun.runId).describe()
  t.ok(first.closeTime, 'the first run had closed when the second started')
  t.ok(Date.parse(secondRun.scheduledAt) < first.closeTime!.getTime(), 'the second run was due while the first was open: it was buffered')
  t.ok(Date.parse(secondRun.startedAt) >= first.closeTime!.getTime(), 'and started once the first closed')
  t.ok(buffered.actionsSkippedOverlap >= 1, 'the buffer holds one: later due runs were dropped')
})

t.test('a cron in a non-UTC time zone: the next times are those cron-parser computes', async (t) => {
  const app = await build(t)
  const cron = '30 9 * * MON-FRI'
  const timezone = 'America/New_York'
  const id = await created(t, app, { ...hello, spec: { cron: [cron], timezone }, paused: true })
  const s = (await get(t, app, id)).body
  const parsed = CronExpressionParser.parse(cron, { tz: timezone, currentDate: new Date() })
  const expected = Array.from({ length: 5 }, () => parsed.next().toDate().toISOString())
  t.same(s.nextActionTimes, expected, 'the engine and an independent cron library agree')
  t.same(s.spec, { cron: [cron], timezone }, 'the spec as sent')

  const calendar = await created(t, app, { ...hello, spec: { calendar: [{ hour: '9', minute: '30', dayOfWeek: 'MON-FRI' }], timezone }, paused: true })
  t.same((await get(t, app, calendar)).body.nextActionTimes, expected, 'calendar fields mean the same as the cron string')
})

t.test('PUT replaces under If-Match; a stale ETag is a 412', async (t) => {
  const app = await build(t)
  const id = await created(t, app, { ...hello, spec: { every: [{ interval: '1h' }] }, paused: true })
  const read = await get(t, app, id)
  const etag = read.headers.etag as string
  t.match(etag, /^"[A-Za-z0-9_-]+"$/)
  const put = (ifMatch: string, body: Record<string, unknown>) =>
    call(t, app, { method: 'PUT', url: `/schedules/${id}`, route: route.one, payload: body, headers: { 'if-match': ifMatch } })
  const replaced = await put(etag, { workflowName: 'hi', input: { name: 'Grace' }, spec: { every: [{ interval: '2h', offset: '5m' }] }, paused: true, note: 'v2' })
  t.equal(replaced.status, 200)
  t.not(replaced.headers.etag, etag, 'a new ETag')
  t.equal(replaced.body.workflowName, 'hello', 'the alias is stored as the canonical name')
  t.same(replaced.body.input, { name: 'Grace' })
  t.same(replaced.body.spec, { every: [{ interval: '2h', offset: '5m' }] })
  t.same(replaced.body.state, { paused: true, note: 'v2' })

  const stale = await put(etag, { ...hello, spec: { every: [{ interval: '3h' }] } })
  t.equal(stale.status, 412)
  t.equal(stale.body.error, 'PreconditionFailedError')
  t.same((await get(t, app, id)).body.spec, { every: [{ interval: '2h', offset: '5m' }] }, 'the stale update changed nothing')

  const invalid = await put(replaced.headers.etag as string, { ...hello, input: { name: 1 }, spec: { every: [{ interval: '1h' }] } })
  t.equal(invalid.status, 400, 'a replacement is validated like a create')
  t.equal(invalid.body.issues[0].in, 'input')
  const missing = await call(t, app, { method: 'PUT', url: '/schedules/no-such-schedule', route: route.one, payload: { ...hello, spec: { every: [{ interval: '1h' }] } }, headers: { 'if-match': etag } })
  t.equal(missing.status, 404)
  t.equal(missing.body.error, 'ScheduleNotFoundError')
})

t.test('If-Match: * replaces the current schedule, whatever its ETag; a missing schedule is still a 404', async (t) => {
  const app = await build(t)
  const id = await created(t, app, { ...hello, spec: { every: [{ interval: '1h' }] }, paused: true })
  const before = (await get(t, app, id)).headers.etag
  const any = await call(t, app, { method: 'PUT', url: `/schedules/${id}`, route: route.one, payload: { ...hello, spec: { every: [{ interval: '4h' }] }, paused: true }, headers: { 'if-match': '*' } })
  t.equal(any.status, 200)
  t.not(any.headers.etag, before, 'a new ETag')
  t.same((await get(t, app, id)).body.spec, { every: [{ interval: '4h' }] })
  const missing = await call(t, app, { method: 'PUT', url: '/schedules/no-such-schedule', route: route.one, payload: { ...hello, spec: { every: [{ interval: '1h' }] } }, headers: { 'if-match': '*' } })
  t.equal(missing.status, 404)
  t.equal(missing.body.error, 'ScheduleNotFoundError')
})

t.test('two PUTs with one ETag that both pass the check: one is applied, the other is a 412, never a lost update', async (t) => {
  const app = await build(t)
  const id = await created(t, app, { ...hello, spec: { every: [{ interval: '1h' }] }, paused: true })
  const etag = (await get(t, app, id)).headers.etag as string
  // Hold each update until both have arrived: both requests have checked the same ETag and send
  // the same conflict token, the race a real client pair only hits now and then.
  const service = app.engine.client.workflowService
  const update = service.updateSchedule.bind(service)
  let arrived = 0
  let bothArrived = () => {}
  const barrier = new Promise<void>((resolve) => { bothArrived = resolve })
  service.updateSchedule = (async (...args: Parameters<typeof update>) => {
    if (++arrived === 2) bothArrived()
    await barrier
    return await update(...args)
  }) as typeof service.updateSchedule
  t.teardown(() => { service.updateSchedule = update as typeof service.updateSchedule })

  const intervals = ['2h', '3h']
  const answers = await Promise.all(intervals.map(async (interval) =>
    await call(t, app, { method: 'PUT', url: `/schedules/${id}`, route: route.one, payload: { ...hello, spec: { every: [{ interval }] }, paused: true }, headers: { 'if-match': etag } })))
  t.same(answers.map((a) => a.status).sort(), [200, 412], 'one applied, one refused')
  const winner = answers.findIndex((a) => a.status === 200)
  const loser = answers[1 - winner]!
  t.match(loser.body, { error: 'PreconditionFailedError', message: /another update meanwhile/ })
  const stored = await get(t, app, id)
  t.same(stored.body.spec, { every: [{ interval: intervals[winner] }] }, 'the stored schedule is the applied one')
  t.equal(stored.headers.etag, answers[winner]!.headers.etag)
})

t.test('every error case, before anything is stored', async (t) => {
  const app = await build(t)
  const spec = { every: [{ interval: '1h' }] }
  const invalid = async (body: Record<string, unknown>, path: string, message: RegExp) => {
    const res = await create(t, app, { ...hello, spec, ...body })
    t.equal(res.status, 400, `${path}: 400`)
    t.equal(res.body.error, 'ValidationError')
    t.ok(res.body.issues.some((i: any) => i.path === path && message.test(i.message)), `${path}: ${res.body.issues.map((i: any) => `${i.path} ${i.message}`).join('; ')}`)
  }
  await invalid({ spec: { cron: ['61 * * * *'] } }, '/spec/cron/0', /minute "61" is outside 0–59/)
  await invalid({ spec: { cron: ['* * *'] } }, '/spec/cron/0', /has 3 fields/)
  await invalid({ spec: { cron: ['0 9 * * FUNDAY'] } }, '/spec/cron/0', /dayOfWeek/)
  await invalid({ spec: { cron: ['@fortnightly'] } }, '/spec/cron/0', /is not one of/)
  await invalid({ spec: { every: [{ interval: '500ms' }] } }, '/spec/every/0/interval', /at least 1s/)
  await invalid({ spec: { every: [{ interval: '10m', offset: '10m' }] } }, '/spec/every/0/offset', /less than the interval/)
  await invalid({ spec: { every: [{ interval: '10 minutes' }] } }, '/spec/every/0/interval', /must match/)
  await invalid({ spec: { calendar: [{ hour: '25' }] } }, '/spec/calendar/0/hour', /outside 0–23/)
  await invalid({ spec: { every: [{ interval: '1h' }], timezone: 'Mars/Olympus_Mons' } }, '/spec/timezone', /not an IANA time zone/)
  await invalid({ spec: {} }, '/spec', /at least one/)
  await invalid({ policies: { catchupWindow: '1s' } }, '/policies/catchupWindow', /at least 10s/)
  await invalid({ policies: { catchupWindow: 9999 } }, '/policies/catchupWindow', /must be >= 10000/)
  const schemas = (await app.inject({ method: 'GET', url: '/openapi.json' })).json().components.schemas
  t.same(schemas.SchedulePolicies.properties.catchupWindow, { $ref: '#/components/schemas/CatchupDuration' })
  t.match(schemas.CatchupDuration.anyOf, [{ pattern: String }, { minimum: 10_000 }], 'the document states the catch-up window\'s least')
  t.same(schemas.ScheduleInterval.properties.interval, { $ref: '#/components/schemas/IntervalDuration' })
  t.match(schemas.IntervalDuration.anyOf, [{ pattern: String }, { minimum: 1000 }], 'and the interval\'s')
  t.match(schemas.ScheduleInterval.description, /offset.*less than `interval`/, 'the offset\'s rule, between two fields, is in words')
  await invalid({ scheduleId: '__flowport-x' }, '/scheduleId', /reserved/)

  const badInput = await create(t, app, { ...hello, input: { name: 42 }, spec })
  t.equal(badInput.status, 400)
  t.same(badInput.body.issues.map((i: any) => i.in), ['input'], 'input checked against the catalog schema')

  const unknown = await create(t, app, { workflowName: 'no-such-workflow', input: {}, spec })
  t.equal(unknown.status, 404)
  t.equal(unknown.body.error, 'WorkflowNotFoundError')
  const noCatalog = await create(t, app, { ...hello, catalog: 'never-published', spec })
  t.equal(noCatalog.status, 404)
  t.equal(noCatalog.body.error, 'WorkflowNotFoundError')

  const listed = await call(t, app, { method: 'GET', url: '/schedules?pageSize=100&workflowName=no-such-workflow', route: route.list })
  t.same(listed.body.schedules, [], 'nothing was stored')

  const id = await created(t, app, { ...hello, spec, paused: true })
  const again = await create(t, app, { scheduleId: id, ...hello, spec })
  t.equal(again.status, 409)
  t.equal(again.body.error, 'ScheduleAlreadyExistsError')

  for (const verb of ['pause', 'unpause', 'trigger']) {
    const res = await act(t, app, 'no-such-schedule', verb)
    t.equal(res.status, 404, `${verb} of an unknown id`)
    t.equal(res.body.error, 'ScheduleNotFoundError')
  }
  const backfill = await act(t, app, 'no-such-schedule', 'backfill', { startAt: '2026-01-01T00:00:00Z', endAt: '2026-01-01T00:01:00Z' })
  t.equal(backfill.status, 404, 'backfill of an unknown id')
  t.equal(backfill.body.error, 'ScheduleNotFoundError')
  const del = await call(t, app, { method: 'DELETE', url: '/schedules/no-such-schedule', route: route.one })
  t.equal(del.body.error, 'ScheduleNotFoundError')
})

t.test('the listing: filters and cursor pages', async (t) => {
  const app = await build(t)
  const ids = [
    await created(t, app, { ...hello, spec: { every: [{ interval: '1h' }] }, paused: true }),
    await created(t, app, { workflowName: 'sleepy', input: { steps: 1, delayMs: 0 }, spec: { every: [{ interval: '1h' }] }, paused: true, note: 'n' })
  ]
  const walk = async (query: string) => {
    const seen: any[] = []
    let token: string | null = null
    do {
      const res: any = await call(t, app, { method: 'GET', url: `/schedules?pageSize=1&${query}${token ? `&pageToken=${token}` : ''}`, route: route.list })
      t.equal(res.status, 200)
      seen.push(...res.body.schedules)
      token = res.body.nextPageToken
    } while (token !== null)
    return seen
  }
  // The engine's schedule list is eventually consistent (a visibility store): a new schedule shows up after a moment.
  const sleepies = await eventually(async () => await walk('workflowName=sleepy'), (seen) => seen.some((s) => s.scheduleId === ids[1]))
  t.ok(sleepies.some((s) => s.scheduleId === ids[1] && s.state.note === 'n'), 'found across pages of one')
  t.notOk(sleepies.some((s) => s.scheduleId === ids[0]), 'the workflowName filter applies')
  const other = await call(t, app, { method: 'GET', url: '/schedules?catalog=never-published', route: route.list })
  t.notOk(other.body.schedules.some((s: any) => ids.includes(s.scheduleId)), 'the catalog filter applies')
  const forged = await call(t, app, { method: 'GET', url: '/schedules?pageToken=AAAA', route: route.list })
  t.equal(forged.status, 400)
})

t.test('startDelay: the run exists at once and its status says when it starts', async (t) => {
  const app = await build(t)
  const workflowId = newId('delayed')
  const before = Date.now()
  const res = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { ...hello, workflowId, startDelay: '1h' } })
  t.equal(res.status, 200)
  t.teardown(async () => { await app.engine.client.workflow.getHandle(workflowId).terminate('test cleanup').catch(() => undefined) })
  const status = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/status`, route: '/workflow/{id}/status' })
  t.equal(status.body.status, 'running')
  const at = Date.parse(status.body.delayedUntil)
  t.ok(at >= before + 3_600_000, 'delayedUntil is an hour after the start')
  t.ok(at <= Date.now() + 3_600_000, 'and no later')
  t.equal(status.body.scheduleId, null)
  const bad = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { ...hello, startDelay: 'soon' } })
  t.equal(bad.status, 400)
})

t.test('a schedule survives an engine restart and an API restart', async (t) => {
  const engine = await ownEngine(t)
  const env = { TEMPORAL_ADDRESS: engine.address, SERVICE_CATALOG_ID: engine.catalog }
  const first = await build(t, env)
  t.ok(await until(async () => (await first.inject({ method: 'GET', url: '/ready' })).statusCode === 200), 'ready once the worker published its catalog')
  // Deleted below; the engine is this test's own and goes at teardown.
  const id = await created(t, first, { ...hello, spec: { every: [{ interval: '2s' }] } }, { cleanup: false })
  const before = await scheduleUntil(t, first, id, (s) => s.actionsTaken >= 1)

  await engine.kill()
  await first.close()
  await engine.restart()
  const second = await build(t, env)
  t.ok(await until(async () => (await second.inject({ method: 'GET', url: '/ready' })).statusCode === 200), 'the new API is ready against the restarted engine')
  const after = await scheduleUntil(t, second, id, (s) => s.actionsTaken >= before.actionsTaken + 2)
  t.ok(after.actionsTaken >= before.actionsTaken + 2, 'the schedule goes on starting runs')
  t.same(after.spec, { every: [{ interval: '2s' }] }, 'as it was stored')
  const run = after.recentActions.at(-1)
  t.equal(await waitClosed(second, run.workflowId, run.runId), 'COMPLETED', 'and its runs complete')
  t.equal((await call(t, second, { method: 'DELETE', url: `/schedules/${id}`, route: route.one })).status, 204)
})
