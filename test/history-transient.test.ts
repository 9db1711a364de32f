/**
 * A run whose workflow task keeps failing (test/fixtures/drift: a reset onto code that no longer
 * replays, as in test/workflow-attention.test.ts) has engine reads that end with a transient
 * WorkflowTaskScheduled/WorkflowTaskStarted the engine never stores: once the run is reset, its
 * WorkflowExecutionTerminated takes their ids. The history page and the live stream show the
 * stored events only, so the stream ends with `done` after every event once, and a resume from
 * any id it sent works; also when the run closes between a read and the describe that judges it
 * (a fault-injecting wrapper around that one describe makes the race certain).
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import type { Test } from 'tap'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, eventually, waitClosed } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'
import { eventIds, hasDone, openSse, type Frame } from './helpers/history.js'
import { decodeCursor } from '../plugins/app/history/cursor.js'

const deploy = async (t: Test, catalog: string, version: 'v1' | 'v2') => {
  const worker = spawnWorker(t, { SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: resolve(`test/fixtures/drift/${version}`) }, process.cwd())
  await worker.waitFor(`Worker polling catalog ${catalog}`)
}

const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

const storedLength = async (app: App, workflowId: string, runId: string) =>
  (await app.engine.client.workflow.getHandle(workflowId, runId).describe()).historyLength

/** A run stuck on a workflow task that fails at every attempt: version 1 completes, version 2 replays it after a reset and fails. */
async function stuckRun (t: Test) {
  const catalog = `drift-${randomUUID()}`
  const workflowId = `drifting-${randomUUID()}`
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  await t.test('version 1 completes a run', async (t) => {
    await deploy(t, catalog, 'v1')
    const started = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'drifting', workflowId, input: {} } })
    t.equal(await waitClosed(app, workflowId, started.body.runId), 'COMPLETED')
  }) // its worker is stopped at the end of the subtest
  await deploy(t, catalog, 'v2')
  const reset = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/reset`, route: '/workflow/{id}/reset', payload: { from: { step: 'b' } } })
  t.equal(reset.status, 200)
  const runId = reset.body.runId as string
  const statusUrl = `/workflow/${workflowId}/runs/${runId}/status`
  const seen = await eventually(async () => (await call(t, app, { method: 'GET', url: statusUrl, route: '/workflow/{id}/runs/{rid}/status' })).body, (body) => body.attention !== null, 120)
  t.match(seen, { status: 'running', attention: { kind: 'workflowTaskFailing' } }, 'the run is stuck: its task is retried transiently')
  return { app, workflowId, runId }
}

t.test('a stuck run\'s history and stream show its stored events only, and the stream ends when a reset ends the run', async (t) => {
  const { app, workflowId, runId: stuck } = await stuckRun(t)
  const stored = await storedLength(app, workflowId, stuck)
  const page = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/runs/${stuck}/history?pageSize=1000`, route: '/workflow/{id}/runs/{rid}/history' })
  t.same(page.body.events.map((e: { eventId: string }) => Number(e.eventId)), oneTo(stored), 'the history page holds the stored events, not the transient task')

  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `${base}/workflow/${workflowId}/runs/${stuck}/history/stream`
  const sse = await openSse(url)
  await sse.until((frames) => hasDone(frames) || eventIds(frames).includes(stored))

  const healed = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/reset`, route: '/workflow/{id}/reset', payload: { from: 'start' } })
  t.equal(healed.status, 200, 'the stuck run is reset, which terminates it')
  const frames = await sse.until(hasDone)
  sse.close()
  const length = await storedLength(app, workflowId, stuck)
  t.equal(frames.at(-1)?.event, 'done', 'the stream ends with done, not server_error')
  t.same(eventIds(frames), oneTo(length), 'every stored event once, no gap, no duplicate')
  const history = frames.filter((f) => f.event === 'history').flatMap((f) => JSON.parse(f.data) as Array<{ eventType: string }>)
  t.equal(history.at(-1)?.eventType, 'EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED', 'the last event is the termination')

  // Every id the stream sent resumes: the rest of the run, then done (or 204 after done).
  const sent = frames.filter((f): f is Frame & { id: string } => f.id !== undefined)
  for (const { id, event } of sent) {
    const position = decodeCursor(id)!.eventId
    const resumed = await openSse(url, { 'last-event-id': id })
    if (event === 'done') {
      t.equal(resumed.statusCode, 204, `after done (${position}): 204`)
      continue
    }
    t.equal(resumed.statusCode, 200, `resume after ${position}`)
    const again = await resumed.until(hasDone)
    resumed.close()
    t.equal(again.at(-1)?.event, 'done', `resume after ${position} ends with done`)
    t.same(eventIds(again), oneTo(length).slice(position), `resume after ${position} gets exactly the events after it`)
  }
})

t.test('a transient task the run\'s close replaces while it is read is not taken for a stored event', async (t) => {
  const { app, workflowId, runId } = await stuckRun(t)
  const stored = await storedLength(app, workflowId, runId)
  // The race, made certain: the run is terminated between the history read that ends with the
  // transient task and the describe that judges it, so WorkflowExecutionTerminated has its id.
  const service = app.engine.client.workflowService
  const original = service.describeWorkflowExecution
  const describe = original.bind(service)
  let reads = 0
  const injected = async (request: Parameters<typeof describe>[0]) => {
    if (++reads === 2) await app.engine.client.workflow.getHandle(workflowId, runId).terminate('closed while its history is read')
    return await describe(request)
  }
  // The service's methods also carry gRPC metadata the wrapper does not need.
  service.describeWorkflowExecution = injected as unknown as typeof original
  t.teardown(() => { service.describeWorkflowExecution = original })
  const page = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/runs/${runId}/history?pageSize=1000`, route: '/workflow/{id}/runs/{rid}/history' })
  t.equal(reads, 2, 'the route\'s describe, then the one judging the page\'s tail')
  t.equal(await storedLength(app, workflowId, runId), stored + 1, 'the termination took the transient task\'s id')
  t.same(page.body.events.map((e: { eventId: string }) => Number(e.eventId)), oneTo(stored), 'the page holds the events stored before the termination, not the transient task under the termination\'s id')
})
