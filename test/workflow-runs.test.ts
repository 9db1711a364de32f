import t from 'tap'
import { CATALOG_WORKFLOW_TYPE } from '@flowport/core/contract'
import type { Test } from 'tap'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, eventually, start } from './helpers/workflows.js'

interface Row { workflowId: string, runId: string, workflowName: string, status: string, catalog: string, startTime: string }

const list = async (t: Test, app: App, query: Record<string, string | number>) => {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()
  return await call(t, app, { method: 'GET', url: `/workflow/runs?${qs}`, route: '/workflow/runs' })
}

/** Walks every page; returns the rows and the page sizes seen. */
async function walk (t: Test, app: App, query: Record<string, string | number>) {
  const rows: Row[] = []
  const sizes: number[] = []
  let pageToken: string | null = null
  do {
    const res = await list(t, app, pageToken ? { ...query, pageToken } : query)
    t.equal(res.status, 200)
    rows.push(...res.body.runs)
    sizes.push(res.body.runs.length)
    pageToken = res.body.nextPageToken
  } while (pageToken !== null)
  return { rows, sizes }
}

t.test('filters, newest-first order and cursor pagination', async (t) => {
  const app = await build(t)
  const catalog = process.env.FLOWPORT_TEST_CATALOG as string
  const startedAfter = new Date().toISOString()
  const mine: string[] = []
  for (let i = 0; i < 5; i++) mine.push((await start(t, app, 'approval', { label: `list-${i}` })).workflowId)
  const startedBefore = new Date(Date.now() + 1).toISOString()
  const window = { workflowName: 'approval', catalog, startedAfter, startedBefore }

  // Visibility is eventually consistent: wait until every run is listed.
  const all = await eventually(() => list(t, app, { ...window, pageSize: 1000 }), (res) => mine.every((id) => res.body.runs.some((r: Row) => r.workflowId === id)))
  t.ok(mine.every((id) => all.body.runs.some((r: Row) => r.workflowId === id)), 'all five runs are listed')
  t.equal(all.body.nextPageToken, null, 'one page holds them all: no next page')

  const { rows, sizes } = await walk(t, app, { ...window, pageSize: 2 })
  t.ok(sizes.every((n) => n <= 2), 'pages hold at most pageSize runs')
  t.ok(sizes.length >= 3, 'five runs need at least three pages of two')
  const ids = rows.map((r) => r.workflowId)
  t.equal(new Set(ids).size, ids.length, 'no run appears twice across pages')
  t.same(ids.filter((id) => mine.includes(id)), [...mine].reverse(), 'newest first')
  for (const row of rows) {
    t.equal(row.workflowName, 'approval')
    t.equal(row.catalog, catalog)
    t.ok(row.startTime >= startedAfter && row.startTime < startedBefore, 'started within the window')
  }

  // Status filter: two stopped, three still running.
  for (const id of mine.slice(0, 2)) await app.engine.client.workflow.getHandle(id).terminate('test')
  const terminated = await eventually(() => list(t, app, { ...window, status: 'terminated', pageSize: 1000 }),
    (res) => res.body.runs.filter((r: Row) => mine.includes(r.workflowId)).length === 2)
  t.same(terminated.body.runs.filter((r: Row) => mine.includes(r.workflowId)).map((r: Row) => r.workflowId).sort(), mine.slice(0, 2).sort())
  t.ok(terminated.body.runs.every((r: Row) => r.status === 'terminated'))
  const running = await eventually(() => list(t, app, { ...window, status: 'running', pageSize: 1000 }),
    (res) => res.body.runs.filter((r: Row) => mine.includes(r.workflowId)).length === 3)
  t.same(running.body.runs.filter((r: Row) => mine.includes(r.workflowId)).map((r: Row) => r.workflowId).sort(), mine.slice(2).sort())

  const otherCatalog = await list(t, app, { ...window, catalog: 'never-published' })
  t.same(otherCatalog.body, { runs: [], nextPageToken: null }, 'the catalog filter applies')
  for (const id of mine.slice(2)) await app.engine.client.workflow.getHandle(id).terminate('test cleanup')
})

t.test('internal catalog workflows are never listed', async (t) => {
  const app = await build(t)
  const everything = await list(t, app, { pageSize: 1000 })
  t.equal(everything.status, 200)
  t.notOk(everything.body.runs.some((r: Row) => r.workflowName === CATALOG_WORKFLOW_TYPE), 'not among all runs')
  const byType = await list(t, app, { workflowName: CATALOG_WORKFLOW_TYPE })
  t.same(byType.body.runs, [], 'not even when asked for by type')
})

t.test('filter values are quoted: a value cannot change the query', async (t) => {
  const app = await build(t)
  const res = await list(t, app, { workflowName: 'x" OR WorkflowType != "y', catalog: 'a\\" OR "1"="1' })
  t.equal(res.status, 200)
  t.same(res.body, { runs: [], nextPageToken: null })
})

t.test('bad page tokens and parameters are 400s', async (t) => {
  const app = await build(t)
  for (let i = 0; i < 3; i++) await start(t, app, 'hello', { name: `tok-${i}` })
  const first = await eventually(() => list(t, app, { workflowName: 'hello', pageSize: 1 }), (res) => res.body.nextPageToken !== null)
  const token = first.body.nextPageToken as string
  t.match(token, /^[A-Za-z0-9_-]+$/, 'the cursor is URL-safe')

  const cases: Array<[string, Record<string, string | number>, string]> = [
    ['garbage token', { workflowName: 'hello', pageToken: 'Z2FyYmFnZS10b2tlbg' }, '/pageToken'],
    ['token of other filters', { workflowName: 'approval', pageToken: token }, '/pageToken'],
    ['damaged token', { workflowName: 'hello', pageSize: 1, pageToken: token.slice(0, -2) }, '/pageToken'],
    ['not URL-safe', { pageToken: 'a+b/c=' }, '/pageToken'],
    ['pageSize 0', { pageSize: 0 }, '/pageSize'],
    ['pageSize 1001', { pageSize: 1001 }, '/pageSize'],
    ['unknown status', { status: 'cancelled' }, '/status'],
    ['bad time', { startedAfter: 'yesterday' }, '/startedAfter'],
    ['unknown parameter', { sort: 'asc' }, '/sort']
  ]
  for (const [name, query, path] of cases) {
    const res = await list(t, app, query)
    t.equal(res.status, 400, name)
    t.match(res.body.issues, [{ path, in: 'querystring' }], name)
  }
  const next = await list(t, app, { workflowName: 'hello', pageSize: 1, pageToken: token })
  t.equal(next.status, 200, 'the real token works')
  t.equal(next.body.runs.length, 1)
})

t.test('every date-time the schema accepts filters (leap seconds, ±hh offsets, years at the edges: 500 before)', async (t) => {
  const app = await build(t)
  const mine = await start(t, app, 'hello', { name: 'dates' })
  const found = (res: Awaited<ReturnType<typeof list>>) => res.body.runs.some((r: Row) => r.workflowId === mine.workflowId)
  for (const startedAfter of ['1990-12-31T23:59:60Z', '2000-01-01T00:00:00+05', '2000-01-01 00:00:00.5+0530', '0000-01-01T00:00:00+01:00']) {
    const res = await eventually(() => list(t, app, { startedAfter, pageSize: 1000 }), found)
    t.equal(res.status, 200, startedAfter)
    t.ok(found(res), `${startedAfter}: the run started after it`)
  }
  const before = await list(t, app, { startedBefore: '9999-12-31T23:59:59-23:59', workflowName: 'hello' })
  t.equal(before.status, 200)
  t.ok(before.body.runs.length > 0, 'a time beyond year 9999 is "any time"')
  const nothing = await list(t, app, { startedBefore: '2016-12-31T23:59:60Z' })
  t.same(nothing.body, { runs: [], nextPageToken: null }, 'a leap second is an instant like any other')
})

t.test('a NUL in a filter value is a 400 at once (the visibility store hung until the deadline: 503)', async (t) => {
  const app = await build(t)
  for (const [name, value] of [['workflowName', 'a\u0000b'], ['catalog', '\u0000']]) {
    // A 400 is the proof that the engine was not asked: the store answered such a query with a 503.
    const res = await list(t, app, { [name]: value })
    t.equal(res.status, 400, name)
    t.match(res.body.issues, [{ path: `/${name}`, in: 'querystring' }])
  }
})

t.test('pageSize is optional and defaults to 50 (the document said required)', async (t) => {
  const app = await build(t)
  const res = await list(t, app, {})
  t.equal(res.status, 200)
  t.ok(res.body.runs.length <= 50)
})
