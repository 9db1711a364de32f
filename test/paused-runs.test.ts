/**
 * A paused run (the engine's Workflow Pause, experimental: an engine of the test's own with
 * `frontend.WorkflowPauseEnabled`): its status says `paused`, and its result is a 424 that says so,
 * unpinned and pinned. The unpinned result is read from the first page of the id's history when
 * that names an open run (plugins/app/engine/runs/history.ts, `readLatestPage`); a run that was ever paused is left
 * to the describe, which alone knows whether it still is.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { Client, Connection } from '@temporalio/client'
import { startEngine } from '../cli/engine.js'
import { build } from './helpers/app.js'

t.test('a paused run: status paused, result 424 paused; running again once unpaused', async (t) => {
  const engine = await startEngine({ dynamicConfig: { 'frontend.WorkflowPauseEnabled': true } })
  t.teardown(() => engine.stop())
  const connection = await Connection.connect({ address: engine.address })
  t.teardown(() => connection.close())
  const temporal = new Client({ connection, namespace: engine.namespace })
  const app = await build(t, { TEMPORAL_ADDRESS: engine.address, TEMPORAL_NAMESPACE: engine.namespace })

  // A run no worker serves: nothing but the test changes it.
  const handle = await temporal.workflow.start('nobody', { taskQueue: `no-worker-${randomUUID()}`, workflowId: `paused-${randomUUID()}`, args: [] })
  const run = { workflowId: handle.workflowId, runId: handle.firstExecutionRunId }
  const execution = { namespace: engine.namespace, workflowId: run.workflowId, runId: run.runId, identity: 'paused-runs.test', requestId: randomUUID() }
  const get = async (path: string) => await app.inject({ method: 'GET', url: `/workflow/${run.workflowId}${path}` })
  const notClosed = (status: string) => ({ error: 'WorkflowNotCompletedError', message: `Workflow ${run.workflowId} run ${run.runId} is not closed yet (status ${status})`, ...run })

  t.match((await get('/result')).json(), notClosed('running'), 'a run never paused: running, from the first page alone')

  await connection.workflowService.pauseWorkflowExecution({ ...execution, reason: 'the test pauses it' })
  t.match((await get('/status')).json(), { ...run, status: 'paused' })
  for (const path of ['/result', `/runs/${run.runId}/result`]) {
    const res = await get(path)
    t.equal(res.statusCode, 424, path)
    t.match(res.json(), notClosed('paused'), `${path}: the describe's status, not the page's guess`)
  }

  await connection.workflowService.unpauseWorkflowExecution({ ...execution, requestId: randomUUID(), reason: 'the test unpauses it' })
  t.match((await get('/status')).json(), { status: 'running' })
  t.match((await get('/result')).json(), notClosed('running'), 'unpaused: running again (its page still holds the pause)')

  await handle.terminate('the test is over')
  const closed = await get('/result')
  t.equal(closed.statusCode, 200)
  t.match(closed.json(), { ...run, status: 'terminated' })
})
