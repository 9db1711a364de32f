/**
 * A real Go worker (examples/go-worker: Temporal's Go SDK, nothing of Flowport's) behind the API
 * through its catalog file (issue 52): run and result, a signal validated against the declared
 * schema, the live history stream (SSE) of a run until it closes, the trace built from its history
 * (the Go SDK's LocalActivity marker, a retried activity), and a failure in the Go error's own
 * type. Each response is checked against openapi.json.
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import type { Trace } from '@flowport/core/trace'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { declaredBasics } from './helpers/declared-basics.js'
import { call, newId } from './helpers/workflows.js'
import { hasDone, openSse, type Frame } from './helpers/history.js'
import { startGoWorker } from './helpers/go-worker.js'

const catalog = `go-${randomUUID()}`
let app: App

t.before(async () => {
  await startGoWorker(t, catalog)
  app = await build(t)
})

const post = async (t: Test, url: string, route: string, payload: unknown) => await call(t, app, { method: 'POST', url, route, payload })
const get = async (t: Test, url: string, route: string) => await call(t, app, { method: 'GET', url, route })

declaredBasics(t, () => app, catalog, 'Go')

t.test('a signal, the live history stream until the run closes, and the trace from its history', async (t) => {
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const workflowId = newId('order')
  const started = await post(t, '/workflow/start', '/workflow/start', { catalog, workflowName: 'order', input: { item: 'lamp', quantity: 2 }, workflowId })
  t.equal(started.status, 200)
  const stream = await openSse(`${base}/workflow/${workflowId}/history/stream`)
  t.equal(stream.statusCode, 200)
  // A history frame carries a batch of events.
  const history = (frames: Frame[]) => frames.filter((f) => f.event === 'history')
    .flatMap((f) => JSON.parse(f.data) as Array<{ eventType: string, markerRecordedEventAttributes?: { markerName: string } }>)
  await stream.until((f) => history(f).some((e) => e.markerRecordedEventAttributes?.markerName === 'LocalActivity'))

  const bad = await post(t, `/workflow/${workflowId}/signal/approve`, '/workflow/{id}/signal/{name}', { payload: { by: 7 } })
  t.equal(bad.status, 400, 'the payload is validated against the declared schema')
  const signalled = await post(t, `/workflow/${workflowId}/signal/approve`, '/workflow/{id}/signal/{name}', { payload: { by: 'ann' } })
  t.equal(signalled.status, 200)

  const frames = await stream.until(hasDone)
  stream.close()
  const types = history(frames).map((e) => e.eventType.replace(/^EVENT_TYPE_/, ''))
  t.ok(types.includes('WORKFLOW_EXECUTION_SIGNALED'), 'the stream shows the signal')
  t.ok(types.includes('ACTIVITY_TASK_COMPLETED'), 'and the activity')
  t.equal(types.at(-1), 'WORKFLOW_EXECUTION_COMPLETED', 'up to the close')
  t.ok(frames.some((f) => f.event === 'done'))

  const result = await get(t, `/workflow/${workflowId}/result`, '/workflow/{id}/result')
  t.match(result.body, { status: 'completed', output: { item: 'lamp', quantity: 2, charged: 800, approvedBy: 'ann' } })

  const log = (await get(t, `/workflow/${workflowId}/trace-log`, '/workflow/{id}/trace-log')).body as { source: string, trace: Trace }
  t.equal(log.source, 'history', 'a Go worker writes no trace: it is built from the history')
  t.same(log.trace.nodes.map((n) => [n.name, n.status]), [['LookupPrice', 'completed'], ['ChargeCard', 'completed']])
  const [lookup, charge] = log.trace.nodes
  t.equal(lookup!.output, 400, 'the local activity\'s result, from the Go SDK\'s marker')
  t.same(charge!.attempts.map((a) => a.status), ['unknown', 'completed'], 'the retry, as the history records it')
  t.match(charge!.attempts[0]!.error, { name: 'CardNetworkBusy', retryable: true })
  t.equal(charge!.input, 800)
})

t.test('a failure carries the Go error\'s own type and its non-retryable flag', async (t) => {
  const ran = await post(t, '/workflow/run', '/workflow/run', { catalog, workflowName: 'refund', input: { orderId: 'o-9' } })
  t.equal(ran.status, 200)
  t.equal(ran.body.status, 'failed')
  t.match(ran.body.errorDetails, { name: 'RefundWindowClosed', message: 'order o-9 is past its refund window', retryable: false, activityId: 'Refund' })
})
