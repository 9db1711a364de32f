/**
 * @flowport/client end to end: every method against the real API (listening on a port) and the
 * shared engine and example worker; the error classes for the API's error answers.
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { build } from '../../test/helpers/app.js'
import {
  FlowportClient, FlowportError, FlowportNetworkError, isFlowportError, ValidationError, WorkflowAlreadyClosedError,
  WorkflowAlreadyStartedError, WorkflowExecutionTimedOutError, WorkflowNotCompletedError, WorkflowNotFoundError,
  WorkflowTimeoutError, IdempotencyKeyReusedError, type WorkflowStatus
} from '@flowport/client'

const catalog = process.env.FLOWPORT_TEST_CATALOG

async function api (t: Test): Promise<FlowportClient> {
  const app = await build(t)
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  return new FlowportClient({ baseUrl })
}

/** Retries `fn` while it throws one of `names` (eventual reads: visibility, traces). */
async function eventually<T> (fn: () => Promise<T>, accept: (value: T) => boolean = () => true): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      const value = await fn()
      if (accept(value) || i >= 200) return value
    } catch (error) {
      if (i >= 200) throw error
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

async function rejection (promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

t.test('run, status, result, input and trace of hello', async (t) => {
  const client = await api(t)
  const result = await client.run('hello', { name: 'Ada' }, { catalog })
  t.equal(result.status, 'completed')
  t.same(result.output, { greeting: 'Hello, Ada!' })
  t.same(result.input, { name: 'Ada' })
  const status = await client.status(result.workflowId)
  t.match(status, { workflowId: result.workflowId, runId: result.runId, workflowName: 'hello', status: 'completed', catalog })
  t.same(await client.status(result.workflowId, { runId: result.runId }), status, 'the pinned status is the same run')
  t.same((await client.result(result.workflowId)).output, result.output)
  t.same((await client.result(result.workflowId, { runId: result.runId })).output, result.output)
  t.same(await client.input(result.workflowId), { workflowId: result.workflowId, runId: result.runId, input: { name: 'Ada' } })
  t.same((await client.input(result.workflowId, { runId: result.runId })).input, { name: 'Ada' })
  const trace = await eventually(async () => await client.trace(result.workflowId))
  t.equal(trace.workflowId, result.workflowId)
  t.equal(trace.runId, result.runId)
  t.ok(trace.trace.nodes.length >= 1, 'the trace has the step')
  t.equal((await client.trace(result.workflowId, { runId: result.runId })).runId, result.runId)
})

t.test('flaky is retried to completion; explode resolves with a failed result', async (t) => {
  const client = await api(t)
  const flaky = await client.run('flaky', { failures: 2 }, { catalog })
  t.equal(flaky.status, 'completed')
  t.same(flaky.output, { attempts: 3 })
  const explode = await client.run('explode', { message: 'boom' }, { catalog })
  t.equal(explode.status, 'failed')
  t.equal(explode.output, null)
  t.match(explode.errorDetails, { activityId: 'explode#detonate' })
})

t.test('start, then signal, query and update approval; stop and its error afterwards', async (t) => {
  const client = await api(t)
  const workflowId = `client-approval-${randomUUID()}`
  const started = await client.start('approval', { label: 'budget' }, { workflowId, catalog })
  t.equal(started.workflowId, workflowId)
  const again = await rejection(client.start('approval', { label: 'budget' }, { workflowId, catalog }))
  t.type(again, WorkflowAlreadyStartedError)
  t.match(again, { status: 409, error: 'WorkflowAlreadyStartedError', name: 'WorkflowAlreadyStartedError', workflowId, runId: started.runId })
  t.type(await rejection(client.result(workflowId)), WorkflowNotCompletedError)

  t.same(await client.query(workflowId, 'state'), { workflowId, runId: started.runId, result: { label: 'budget', approved: false, approvedBy: null } })
  t.match(await client.update(workflowId, 'relabel', { label: 'travel' }), { workflowId, runId: started.runId, result: { previous: 'budget' } })
  t.same(await client.signal(workflowId, 'approve', { by: 'ceo' }), { workflowId, runId: started.runId })
  const result = await eventually(async () => await client.result(workflowId))
  t.same(result.output, { label: 'travel', approvedBy: 'ceo' })

  const second = await client.start('approval', { label: 'second' }, { workflowId, catalog })
  const stopped = await client.stop(workflowId, { runId: second.runId, terminateAfterMs: 30_000 })
  t.match(stopped, { workflowId, runId: second.runId, outcome: 'canceled', status: 'canceled' })
  const closed = await rejection(client.stop(workflowId))
  t.type(closed, WorkflowAlreadyClosedError)
  t.equal((await client.status(workflowId)).status, 'canceled')
})

t.test('terminate a sleepy run; /run timeout is a WorkflowTimeoutError with the workflow id', async (t) => {
  const client = await api(t)
  const timedOut = await rejection(client.run('sleepy', { steps: 20, delayMs: 1000 }, { catalog, timeout: 300 }))
  t.type(timedOut, WorkflowTimeoutError)
  t.type(timedOut, WorkflowExecutionTimedOutError)
  t.type(timedOut, FlowportError)
  t.ok(isFlowportError(timedOut))
  const error = timedOut as WorkflowTimeoutError
  t.equal(error.status, 408)
  t.equal(error.name, 'WorkflowExecutionTimedOutError')
  t.type(error.workflowId, 'string')
  t.equal((await client.status(error.workflowId!)).status, 'running', 'the run goes on')
  const terminated = await client.terminate(error.workflowId!, { reason: 'test over' })
  t.match(terminated, { workflowId: error.workflowId, status: 'terminated' })
  const result = await client.result(error.workflowId!)
  t.equal(result.status, 'terminated')

  const other = await client.start('sleepy', { steps: 20, delayMs: 1000 }, { catalog })
  t.match(await client.terminate(other.workflowId, { runId: other.runId }), { runId: other.runId, status: 'terminated' })
})

t.test('runs iterates over every page', async (t) => {
  const app = await build(t)
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  const pages: string[] = []
  const client = new FlowportClient({
    baseUrl,
    fetch: async (input, init) => {
      const url = input instanceof Request ? input.url : String(input)
      if (url.includes('/workflow/runs')) pages.push(url)
      return await fetch(input, init)
    }
  })
  const startedAfter = new Date(Date.now() - 1000)
  const ids: string[] = []
  for (let i = 0; i < 5; i++) ids.push((await client.start('hello', { name: `page ${i}` }, { catalog })).workflowId)
  const collect = async () => {
    pages.length = 0
    const seen: WorkflowStatus[] = []
    for await (const run of client.runs({ workflowName: 'hello', startedAfter, catalog, pageSize: 2 })) seen.push(run)
    return seen
  }
  // Listing reads the engine's visibility store, which lags a little behind the starts.
  const seen = await eventually(collect, (runs) => ids.every((id) => runs.some((r) => r.workflowId === id)))
  for (const id of ids) t.ok(seen.some((r) => r.workflowId === id), `${id} listed`)
  t.ok(pages.length >= 3, `${pages.length} pages of 2 for ${seen.length} runs`)
  t.ok(pages.slice(1).every((url) => url.includes('pageToken=')), 'later pages ask with the token')
  t.ok(seen.every((r) => r.workflowName === 'hello'), 'the filter is applied')
  t.equal(new Set(seen.map((r) => `${r.workflowId}/${r.runId}`)).size, seen.length, 'no run twice')
})

t.test('catalog: the default one and a named one', async (t) => {
  const client = await api(t)
  const named = await client.catalog(catalog)
  t.equal(named.catalog, catalog)
  const names = named.workflows.map((w) => w.name)
  for (const name of ['hello', 'flaky', 'explode', 'approval', 'sleepy']) t.ok(names.includes(name), name)
  t.same((await client.catalog()).catalog, catalog, 'the app\'s default catalog')
  const missing = await rejection(client.catalog(`nope-${randomUUID()}`))
  t.type(missing, FlowportError)
})

t.test('error classes: unknown workflow, invalid input, unreachable API, abort', async (t) => {
  const client = await api(t)
  const unknown = await rejection(client.run('no-such-workflow', {}, { catalog }))
  t.type(unknown, WorkflowNotFoundError)
  t.match(unknown, { status: 404, error: 'WorkflowNotFoundError', name: 'WorkflowNotFoundError' })
  t.match((unknown as FlowportError).body, { error: 'WorkflowNotFoundError', message: String })

  const invalid = await rejection(client.run('hello', { name: 42 }, { catalog }))
  t.type(invalid, ValidationError)
  const validation = invalid as ValidationError
  t.equal(validation.status, 400)
  t.ok(validation.issues.length >= 1, 'issues are listed')
  t.match(validation.issues[0], { path: String, message: String })

  const missing = await rejection(client.status(`missing-${randomUUID()}`))
  t.type(missing, WorkflowNotFoundError)

  // A port nothing listens on: bind one, close it.
  const app = await build(t)
  const closedUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  await app.close()
  const unreachable = new FlowportClient({ baseUrl: closedUrl })
  const network = await rejection(unreachable.status('x'))
  t.type(network, FlowportNetworkError)
  t.ok(isFlowportError(network))
  t.match(network, { status: 0, error: 'NetworkError', name: 'FlowportNetworkError' })

  const controller = new AbortController()
  const pending = client.run('sleepy', { steps: 20, delayMs: 1000 }, { catalog, signal: controller.signal })
  controller.abort()
  const aborted = await rejection(pending)
  t.notOk(isFlowportError(aborted), 'an abort is not an API error')
  t.equal((aborted as Error).name, 'AbortError')
})

t.test('idempotencyKey: a retried start or run answers the first run; another body is IdempotencyKeyReusedError', async (t) => {
  const client = await api(t)
  const key = randomUUID()
  const first = await client.start('hello', { name: 'Ada' }, { catalog, idempotencyKey: key })
  const again = await client.start('hello', { name: 'Ada' }, { catalog, idempotencyKey: key })
  t.same(again, first)
  const result = await client.run('hello', { name: 'Ada' }, { catalog, idempotencyKey: key })
  t.equal(result.runId, first.runId, '/run with the key waits for the same run')
  const reused = await rejection(client.start('hello', { name: 'Eve' }, { catalog, idempotencyKey: key }))
  t.ok(reused instanceof IdempotencyKeyReusedError)
  t.equal((reused as IdempotencyKeyReusedError).status, 422)
})

t.test('ready, one page of runs at a time, and a query pinned to a run', async (t) => {
  const client = await api(t)
  const ready = await client.ready()
  t.equal(ready.status, 'ready')
  t.ok(ready.catalogs.some((c) => c.catalog === catalog), 'ready lists the test catalog')

  const startedAfter = new Date(Date.now() - 1000)
  const ids: string[] = []
  for (let i = 0; i < 3; i++) ids.push((await client.start('hello', { name: `paged ${i}` }, { catalog })).workflowId)
  const filters = { workflowName: 'hello', startedAfter, catalog, pageSize: 2 }
  const all = await eventually(async () => [...(await client.runsPage({ ...filters, pageSize: 100 })).runs], (runs) => ids.every((id) => runs.some((r) => r.workflowId === id)))
  const first = await client.runsPage(filters)
  t.equal(first.runs.length, 2, 'a page of pageSize runs')
  t.type(first.nextPageToken, 'string', 'and the token of the next')
  const second = await client.runsPage({ ...filters, pageToken: first.nextPageToken! })
  t.ok(second.runs.length >= 1, 'the next page')
  t.ok(all.length >= 3)

  const workflowId = `client-pinned-${randomUUID()}`
  const older = await client.start('approval', { label: 'older' }, { workflowId, catalog })
  // Queried while it runs first: a run terminated before its first workflow task has no state to replay.
  t.match(await client.query(workflowId, 'state'), { runId: older.runId })
  await client.terminate(workflowId, { reason: 'a newer run takes over' })
  const latest = await client.start('approval', { label: 'latest' }, { workflowId, catalog })
  t.teardown(async () => { await client.terminate(workflowId, { runId: latest.runId }) })
  t.match(await client.query(workflowId, 'state', undefined, { runId: older.runId }), { runId: older.runId, result: { label: 'older' } }, 'the pinned run answers')
  t.match(await client.query(workflowId, 'state'), { runId: latest.runId, result: { label: 'latest' } }, 'without runId: the latest run')
})
