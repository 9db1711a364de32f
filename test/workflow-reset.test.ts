/**
 * "Retry from here" against the real engine: the `retryable` fixture's third step fails until the
 * test creates `<dir>/fixed`; each step appends a line to `<dir>/<step>.log` when it really runs,
 * so the counts say which steps a reset ran again.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, firstTaskCompleted, newId, start, waitClosed } from './helpers/workflows.js'

const reset = (t: Test, app: App, id: string, body?: unknown, rid?: string) => call(t, app, rid
  ? { method: 'POST', url: `/workflow/${id}/runs/${rid}/reset`, route: '/workflow/{id}/runs/{rid}/reset', payload: body }
  : { method: 'POST', url: `/workflow/${id}/reset`, route: '/workflow/{id}/reset', payload: body })
const status = (t: Test, app: App, id: string, rid: string) =>
  call(t, app, { method: 'GET', url: `/workflow/${id}/runs/${rid}/status`, route: '/workflow/{id}/runs/{rid}/status' })

function workDir (t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'flowport-reset-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  return dir
}

/** How often each step really ran. */
function runs (dir: string): Record<string, number> {
  const count = (step: string) => existsSync(join(dir, `${step}.log`)) ? readFileSync(join(dir, `${step}.log`), 'utf8').split('\n').filter(Boolean).length : 0
  return { first: count('first'), second: count('second'), third: count('third') }
}

/** A `retryable` (or `retryableLocal`) run that failed at its third step. */
async function failedRun (t: Test, app: App, workflowName = 'retryable') {
  const dir = workDir(t)
  const run = await start(t, app, workflowName, { dir })
  t.equal(await waitClosed(app, run.workflowId, run.runId), 'FAILED', 'the third step failed the run')
  t.same(runs(dir), { first: 1, second: 1, third: 0 })
  return { ...run, dir }
}

t.test('a run that failed at its last step is retried from that step and completes; earlier steps do not run again', async (t) => {
  const app = await build(t)
  const { workflowId, runId, dir } = await failedRun(t, app)
  writeFileSync(join(dir, 'fixed'), '')

  const res = await reset(t, app, workflowId, { reason: 'the third step is fixed' })
  t.equal(res.status, 200)
  const newRunId = res.body.runId as string
  t.not(newRunId, runId, 'a new run')
  t.match(res.body, { workflowId, resetFrom: { runId, step: 'third', eventId: Number } })
  t.equal(await waitClosed(app, workflowId, newRunId), 'COMPLETED')
  t.same(runs(dir), { first: 1, second: 1, third: 1 }, 'first and second ran exactly once in total')

  const result = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/result`, route: '/workflow/{id}/result' })
  t.match(result.body, { runId: newRunId, status: 'completed', output: { steps: ['first', 'second', 'third'] } }, 'the workflow id answers the new run')
  t.match((await status(t, app, workflowId, runId)).body, { status: 'failed', resetTo: newRunId, resetFrom: null, attention: null })
  t.match((await status(t, app, workflowId, newRunId)).body, { status: 'completed', resetTo: null, resetFrom: res.body.resetFrom })

  const log = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/runs/${newRunId}/trace-log`, route: '/workflow/{id}/runs/{rid}/trace-log' })
  t.equal(log.status, 200)
  const trace = log.body.trace
  t.match(trace.workflow, { runId: newRunId, status: 'completed', resetFrom: { runId, eventId: res.body.resetFrom.eventId } }, 'the trace shows the reset')
  const at = trace.workflow.resetFrom.time as string
  const byName = Object.fromEntries(trace.nodes.map((n: { name: string }) => [n.name, n]))
  t.same(trace.nodes.map((n: { name: string }) => n.name), ['first', 'second', 'third'], 'one call of each step')
  t.ok(byName.first.endTime <= at && byName.second.endTime <= at, 'first and second are the old run\'s calls, before the reset')
  t.ok(byName.third.scheduledTime >= at, 'third was scheduled after the reset')
  t.match(byName.third, { status: 'completed', attempts: [{ attempt: 1, status: 'completed' }] })
})

t.test('{step} runs that step and the ones after it again; "start" runs everything again', async (t) => {
  const app = await build(t)
  const { workflowId, runId, dir } = await failedRun(t, app)
  writeFileSync(join(dir, 'fixed'), '')

  const second = await reset(t, app, workflowId, { from: { step: 'second' } }, runId)
  t.equal(second.status, 200)
  t.match(second.body.resetFrom, { runId, step: 'second' })
  t.equal(await waitClosed(app, workflowId, second.body.runId), 'COMPLETED')
  t.same(runs(dir), { first: 1, second: 2, third: 1 }, 'second and third ran again, first did not')

  const fromStart = await reset(t, app, workflowId, { from: 'start', reapply: 'none' })
  t.equal(fromStart.status, 200)
  t.match(fromStart.body.resetFrom, { runId: second.body.runId, step: 'first' })
  t.equal(await waitClosed(app, workflowId, fromStart.body.runId), 'COMPLETED')
  t.same(runs(dir), { first: 2, second: 3, third: 2 }, 'all three ran again')
  const input = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/input`, route: '/workflow/{id}/input' })
  t.match(input.body, { runId: fromStart.body.runId, input: { dir } }, 'same id and input')

  const last = await reset(t, app, workflowId, { from: 'lastWorkflowTask' })
  t.equal(last.status, 200)
  t.match(last.body.resetFrom, { runId: fromStart.body.runId, step: null })
  t.equal(await waitClosed(app, workflowId, last.body.runId), 'COMPLETED')
  t.same(runs(dir), { first: 2, second: 3, third: 2 }, 'after the last workflow task no step is left to run')
})

t.test('a run that failed at a local step (a marker, no scheduled event) is retried from that step; the steps before it do not run again', async (t) => {
  const app = await build(t)
  // retryableLocal: local `first`, `second` on the task queue, local `third` that fails.
  const { workflowId, runId, dir } = await failedRun(t, app, 'retryableLocal')
  writeFileSync(join(dir, 'fixed'), '')

  const res = await reset(t, app, workflowId, { from: 'failedStep' })
  t.equal(res.status, 200)
  t.match(res.body, { workflowId, resetFrom: { runId, step: 'third', eventId: Number } })
  t.equal(await waitClosed(app, workflowId, res.body.runId), 'COMPLETED')
  t.same(runs(dir), { first: 1, second: 1, third: 1 }, 'the local first and second ran exactly once in total')
  const result = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/result`, route: '/workflow/{id}/result' })
  t.match(result.body, { runId: res.body.runId, output: { steps: ['first', 'second', 'third'] } })
})

t.test('a local step is a reset point by name and is among the steps that ran', async (t) => {
  const app = await build(t)
  const { workflowId, runId, dir } = await failedRun(t, app, 'retryableLocal')
  const unknown = await reset(t, app, workflowId, { from: { step: 'fourth' } })
  t.equal(unknown.status, 400)
  t.match(unknown.body.issues, [{ path: '/from/step', message: /steps that ran: first, second, third$/ }])
  writeFileSync(join(dir, 'fixed'), '')

  const first = await reset(t, app, workflowId, { from: { step: 'first' } })
  t.equal(first.status, 200)
  t.match(first.body.resetFrom, { runId, step: 'first' })
  t.equal(await waitClosed(app, workflowId, first.body.runId), 'COMPLETED')
  t.same(runs(dir), { first: 2, second: 2, third: 1 }, 'all three ran again, from the local first on')
  t.match((await status(t, app, workflowId, first.body.runId)).body, { resetFrom: { runId, step: 'first' } }, 'the new run\'s status names the local step too')

  // The local first ended in the task that scheduled second: a point at second runs that task, and first, again.
  const second = await reset(t, app, workflowId, { from: { step: 'second' } })
  t.equal(second.status, 200)
  t.match(second.body.resetFrom, { runId: first.body.runId, step: 'second' })
  t.equal(await waitClosed(app, workflowId, second.body.runId), 'COMPLETED')
  t.same(runs(dir), { first: 3, second: 3, third: 2 }, 'first ran again with second')
})

t.test('reset errors: unknown step 400 naming the steps that ran, no reset point 409, unknown run 404', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await failedRun(t, app)

  const unknown = await reset(t, app, workflowId, { from: { step: 'fourth' } })
  t.equal(unknown.status, 400)
  t.match(unknown.body, { error: 'ValidationError', issues: [{ path: '/from/step', in: 'body', message: /never ran.*first, second, third/ }] })
  const occurrence = await reset(t, app, workflowId, { from: { step: 'second', occurrence: 2 } })
  t.equal(occurrence.status, 400)
  t.match(occurrence.body.issues, [{ path: '/from/occurrence', message: /ran 1 time/ }])
  const invalid = await reset(t, app, workflowId, { from: 'yesterday' })
  t.equal(invalid.status, 400, 'a `from` outside the schema')

  const hello = await start(t, app, 'hello', { name: 'reset' })
  await waitClosed(app, hello.workflowId)
  const noFailure = await reset(t, app, hello.workflowId, { from: 'failedStep' })
  t.equal(noFailure.status, 409)
  t.match(noFailure.body, { error: 'ResetNotPossibleError', workflowId: hello.workflowId, message: /no step of it failed/ })

  for (const res of [await reset(t, app, newId('nobody')), await reset(t, app, workflowId, {}, randomUUID())]) {
    t.equal(res.status, 404)
    t.equal(res.body.error, 'WorkflowNotFoundError')
  }
  t.match((await status(t, app, workflowId, runId)).body, { resetTo: null }, 'nothing was reset')
})

t.test('resetting an old run while a newer run of the id is open is refused; the open run is reset instead', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await failedRun(t, app)
  const open = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'approval', workflowId, input: { label: 'newer' } } })
  t.equal(open.status, 200)
  t.ok(await firstTaskCompleted(app, workflowId, open.body.runId), 'the open run has completed a workflow task')
  const refused = await reset(t, app, workflowId, {}, runId)
  t.equal(refused.status, 409)
  t.match(refused.body, { error: 'ResetNotPossibleError', message: new RegExp(`run ${String(open.body.runId)} of the workflow id is open`) })

  const running = await reset(t, app, workflowId, { from: 'start' })
  t.equal(running.status, 200, 'a running run can be reset')
  t.match((await status(t, app, workflowId, open.body.runId)).body, { status: 'terminated', resetTo: running.body.runId })
  await app.engine.client.workflow.getHandle(workflowId, running.body.runId).terminate('test over')
})

/** The signal events of a run's history (a reset copies the old run's up to the point and adds the reapplied ones). */
async function signalsOf (app: App, workflowId: string, runId: string): Promise<string[]> {
  const history = await app.engine.client.workflow.getHandle(workflowId, runId).fetchHistory()
  return (history.events ?? []).flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? [])
}

t.test('reapply: a signal the old run received after the point reaches the new run by default, not with "none" or "updates"', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'reapply' })
  // The point (`start`: the first workflow task) must come before the signal: wait until that task completed.
  t.ok(await firstTaskCompleted(app, workflowId, runId), 'the first workflow task completed before the signal')
  const signalled = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/signal/approve`, route: '/workflow/{id}/signal/{name}', payload: { payload: { by: 'ops' } } })
  t.equal(signalled.status, 200)
  t.equal(await waitClosed(app, workflowId, runId), 'COMPLETED', 'the approval completed the old run')

  const byDefault = await reset(t, app, workflowId, { from: 'start' }, runId)
  t.equal(byDefault.status, 200)
  t.equal(await waitClosed(app, workflowId, byDefault.body.runId), 'COMPLETED', 'the new run received the approval again')
  t.match(await app.engine.client.workflow.getHandle(workflowId, byDefault.body.runId).result(), { approvedBy: 'ops' })
  t.same(await signalsOf(app, workflowId, byDefault.body.runId), ['approve'])

  for (const reapply of ['none', 'updates']) {
    const res = await reset(t, app, workflowId, { from: 'start', reapply }, runId)
    t.equal(res.status, 200, `reapply ${reapply}`)
    const newRunId = res.body.runId as string
    t.teardown(() => app.engine.client.workflow.getHandle(workflowId, newRunId).terminate('test over').catch(() => undefined))
    t.same(await signalsOf(app, workflowId, newRunId), [], `reapply ${reapply}: the new run's history has no signal`)
    // The new run is the latest of the id: the query reaches it.
    const state = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/query/state`, route: '/workflow/{id}/query/{query}' })
    t.equal(state.status, 200)
    t.match(state.body, { runId: newRunId, result: { approved: false, approvedBy: null } }, `reapply ${reapply}: the new run still waits for its approval`)
    await app.engine.client.workflow.getHandle(workflowId, newRunId).terminate('test over')
  }
})
