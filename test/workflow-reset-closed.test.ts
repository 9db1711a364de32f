/**
 * Reset of runs that did not fail: terminated, stopped (canceled) and timed out, against the real
 * engine. Each resets the run from its first workflow task and checks the new run, its result and
 * the links both statuses carry (`resetTo` on the old run, `resetFrom` on the new one).
 */
import t from 'tap'
import type { Test } from 'tap'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { testCatalog } from './helpers/env.js'
import { call, firstTaskCompleted, newId, start, waitClosed } from './helpers/workflows.js'

const reset = (t: Test, app: App, id: string, rid: string, body: unknown) =>
  call(t, app, { method: 'POST', url: `/workflow/${id}/runs/${rid}/reset`, route: '/workflow/{id}/runs/{rid}/reset', payload: body })
const status = async (t: Test, app: App, id: string, rid: string) =>
  (await call(t, app, { method: 'GET', url: `/workflow/${id}/runs/${rid}/status`, route: '/workflow/{id}/runs/{rid}/status' })).body
const result = async (t: Test, app: App, id: string) =>
  (await call(t, app, { method: 'GET', url: `/workflow/${id}/result`, route: '/workflow/{id}/result' })).body

/** Waits until the run's first workflow task completed: the `start` point exists and the run is waiting for its approval. */
async function waiting (t: Test, app: App, workflowId: string, runId: string) {
  t.ok(await firstTaskCompleted(app, workflowId, runId), 'the run completed its first workflow task')
}

/**
 * Resets a closed `approval` run from the start; the new run waits for its approval again, gets it
 * and completes. `answeredStep`: the first step the old run scheduled after the point, which the
 * reset answers; the new run's status names the first step the new run scheduled (none here).
 */
async function resetAndApprove (t: Test, app: App, workflowId: string, runId: string, closedAs: string, answeredStep: string | null) {
  const res = await reset(t, app, workflowId, runId, { from: 'start', reason: `reset the ${closedAs} run` })
  t.equal(res.status, 200)
  const newRunId = res.body.runId as string
  t.not(newRunId, runId, 'a new run')
  t.match(res.body, { workflowId, resetFrom: { runId, eventId: Number, step: answeredStep } })
  const link = { runId, eventId: res.body.resetFrom.eventId, step: null }
  t.match(await status(t, app, workflowId, runId), { status: closedAs, resetTo: newRunId, resetFrom: null }, `the old run stays ${closedAs} and names the new one`)
  t.match(await status(t, app, workflowId, newRunId), { status: 'running', resetTo: null, resetFrom: link })

  const approved = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/signal/approve`, route: '/workflow/{id}/signal/{name}', payload: { payload: { by: 'ops' } } })
  t.equal(approved.status, 200)
  t.equal(approved.body.runId, newRunId, 'the signal went to the new run')
  t.equal(await waitClosed(app, workflowId, newRunId), 'COMPLETED')
  t.match(await result(t, app, workflowId), { runId: newRunId, status: 'completed', output: { label: 'reset', approvedBy: 'ops' } }, 'the workflow id answers the new run')
  t.match(await status(t, app, workflowId, newRunId), { status: 'completed', resetFrom: link }, 'the new run scheduled no step')
}

t.test('a terminated run is reset from the start: the new run runs again and completes', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'reset' })
  await waiting(t, app, workflowId, runId)
  const terminated = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/terminate`, route: '/workflow/{id}/terminate', payload: { reason: 'by mistake' } })
  t.equal(terminated.status, 200)
  t.equal(await waitClosed(app, workflowId, runId), 'TERMINATED')
  await resetAndApprove(t, app, workflowId, runId, 'terminated', null)
})

t.test('a stopped (canceled) run is reset from the start: its cancellation is not delivered again, the new run completes', async (t) => {
  const app = await build(t)
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'reset' })
  await waiting(t, app, workflowId, runId)
  const stopped = await call(t, app, { method: 'PATCH', url: `/workflow/${workflowId}/stop`, route: '/workflow/{id}/stop' })
  t.equal(stopped.status, 200)
  // The SDK's spelling of the engine's status.
  t.equal(await waitClosed(app, workflowId, runId), 'CANCELLED')
  // The old run's cleanup step (`releaseHold`) followed the point; Temporal reapplies signals and
  // updates, not a cancellation request, so the new run is not stopped and never calls it.
  await resetAndApprove(t, app, workflowId, runId, 'canceled', 'releaseHold')
})

t.test('a timed-out run is reset from the start: the new run runs again under the same run timeout and times out again', async (t) => {
  const app = await build(t)
  // The API starts runs without a timeout; a run started by another client may have one.
  const workflowId = newId('timeout')
  const handle = await app.engine.client.workflow.start('approval', { taskQueue: testCatalog(), workflowId, args: [{ label: 'reset' }], workflowRunTimeout: '3s' })
  const runId = handle.firstExecutionRunId
  t.equal(await waitClosed(app, workflowId, runId), 'TIMED_OUT')

  const res = await reset(t, app, workflowId, runId, { from: 'start' })
  t.equal(res.status, 200)
  const newRunId = res.body.runId as string
  t.match(res.body, { workflowId, resetFrom: { runId, eventId: Number, step: null } })
  t.equal(await waitClosed(app, workflowId, newRunId), 'TIMED_OUT', 'nothing approved it within its own 3 s')
  t.match(await status(t, app, workflowId, runId), { status: 'timed_out', resetTo: newRunId, resetFrom: null })
  t.match(await status(t, app, workflowId, newRunId), { status: 'timed_out', resetTo: null, resetFrom: res.body.resetFrom })
  t.match(await result(t, app, workflowId), { runId: newRunId, status: 'timed_out' }, 'the workflow id answers the new run')
  const started = (await app.engine.client.workflow.getHandle(workflowId, newRunId).fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes
  t.equal(Number(started?.workflowRunTimeout?.seconds), 3, 'the new run keeps the old run\'s run timeout')
})
