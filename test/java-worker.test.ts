/**
 * A real Java worker (examples/java-worker: Temporal's Java SDK, nothing of Flowport's) behind the
 * API through its catalog file (issue 52): run and result, a query, an update (the Java validator's
 * rejection → 422), a signal, the live history stream resumed with Last-Event-ID, the steps and the
 * trace built from its history (the Java SDK's LocalActivity marker, a retried activity), and a
 * failure carrying the ApplicationFailure's type and non-retryable flag. Each response is checked
 * against openapi.json.
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import type { Trace } from '@flowport/core/trace'
import { localStepMarkerOf, stepsOf, type StepHistoryEvent } from '@flowport/core/steps'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { declaredBasics } from './helpers/declared-basics.js'
import { call, eventually, newId } from './helpers/workflows.js'
import { eventIds, hasDone, openSse, type Frame } from './helpers/history.js'
import { startJavaWorker } from './helpers/java-worker.js'

const catalog = `java-${randomUUID()}`
let app: App

t.before(async () => {
  await startJavaWorker(t, catalog)
  app = await build(t)
})

const post = async (t: Test, url: string, route: string, payload: unknown) => await call(t, app, { method: 'POST', url, route, payload })
const get = async (t: Test, url: string, route: string) => await call(t, app, { method: 'GET', url, route })
const traceOf = async (t: Test, workflowId: string) =>
  (await get(t, `/workflow/${workflowId}/trace-log`, '/workflow/{id}/trace-log')).body as { source: string, trace: Trace }

declaredBasics(t, () => app, catalog, 'Java')

t.test('a query, an update and its validator, a signal, the history stream resumed with Last-Event-ID, steps and the trace', async (t) => {
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const workflowId = newId('order')
  const started = await post(t, '/workflow/start', '/workflow/start', { catalog, workflowName: 'order', input: { item: 'lamp', quantity: 2 }, workflowId })
  t.equal(started.status, 200)
  const url = `${base}/workflow/${workflowId}/history/stream`
  // A history frame carries a batch of events.
  const history = (frames: Frame[]) => frames.filter((f) => f.event === 'history')
    .flatMap((f) => JSON.parse(f.data) as Array<{ eventType: string, markerRecordedEventAttributes?: { markerName: string } }>)
  const first = await openSse(url)
  t.equal(first.statusCode, 200)
  const before = await first.until((f) => history(f).some((e) => e.markerRecordedEventAttributes?.markerName === 'LocalActivity'))
  first.close()
  const lastId = before.filter((f) => f.event === 'history').at(-1)?.id
  t.ok(lastId, 'history frames carry an id')

  const state = await eventually(async () => await post(t, `/workflow/${workflowId}/query/state`, '/workflow/{id}/query/{query}', {}), (r) => r.status === 200)
  t.same(state.body.result, { approved: false, discount: 0 })
  const updated = await post(t, `/workflow/${workflowId}/update/setDiscount`, '/workflow/{id}/update/{name}', { payload: 10 })
  t.equal(updated.status, 200)
  t.equal(updated.body.result, 10)
  const rejected = await post(t, `/workflow/${workflowId}/update/setDiscount`, '/workflow/{id}/update/{name}', { payload: 80 })
  t.equal(rejected.status, 422, 'the Java validator (@UpdateValidatorMethod) rejects it')
  t.equal(rejected.body.error, 'UpdateRejectedError')
  t.match(rejected.body.message, 'a discount over 50% needs a manager')
  const badPayload = await post(t, `/workflow/${workflowId}/update/setDiscount`, '/workflow/{id}/update/{name}', { payload: -1 })
  t.equal(badPayload.status, 400, 'the declared payloadSchema is checked before the engine')
  const queried = await post(t, `/workflow/${workflowId}/query/state`, '/workflow/{id}/query/{query}', {})
  t.same(queried.body.result, { approved: false, discount: 10 }, 'the rejected update changed nothing')

  const badSignal = await post(t, `/workflow/${workflowId}/signal/approve`, '/workflow/{id}/signal/{name}', { payload: { by: 7 } })
  t.equal(badSignal.status, 400, 'the payload is validated against the declared schema')
  const signalled = await post(t, `/workflow/${workflowId}/signal/approve`, '/workflow/{id}/signal/{name}', { payload: { by: 'ann' } })
  t.equal(signalled.status, 200)

  const resumed = await openSse(url, { 'last-event-id': lastId as string })
  const frames = await resumed.until(hasDone)
  resumed.close()
  t.ok(Math.min(...eventIds(frames)) > Math.max(...eventIds(before)), 'resumed after the last event seen')
  const types = history(frames).map((e) => e.eventType.replace(/^EVENT_TYPE_/, ''))
  t.ok(types.includes('WORKFLOW_EXECUTION_UPDATE_ACCEPTED'), 'the stream shows the update')
  t.ok(types.includes('WORKFLOW_EXECUTION_SIGNALED'), 'and the signal')
  t.ok(types.includes('ACTIVITY_TASK_COMPLETED'), 'and the activity')
  t.equal(types.at(-1), 'WORKFLOW_EXECUTION_COMPLETED', 'up to the close')

  const result = await get(t, `/workflow/${workflowId}/result`, '/workflow/{id}/result')
  t.same(result.body.output, { item: 'lamp', quantity: 2, discount: 10, charged: 720, approvedBy: 'ann' })

  // The steps the inspector and the CLI fold from the history's JSON.
  const page = await get(t, `/workflow/${workflowId}/history?includePayloads=true`, '/workflow/{id}/history')
  const steps = stepsOf(page.body.events as StepHistoryEvent[], { localStep: localStepMarkerOf })
  t.same(steps.map((s) => [s.name, s.local, s.status, s.attempt]), [['LookupPrice', true, 'completed', 1], ['ChargeCard', false, 'completed', 2]],
    'the local activity, from the Java SDK\'s marker, and the retried activity')

  const log = await traceOf(t, workflowId)
  t.equal(log.source, 'history', 'a Java worker writes no trace: it is built from the history')
  t.same(log.trace.nodes.map((n) => [n.name, n.status]), [['LookupPrice', 'completed'], ['ChargeCard', 'completed']])
  const [lookup, charge] = log.trace.nodes
  t.equal(lookup!.output, 400, 'the local activity\'s result, from the Java SDK\'s marker')
  t.equal(lookup!.input, 'lamp', 'and its input, which the Java SDK records there too')
  t.same(charge!.attempts.map((a) => a.status), ['unknown', 'completed'], 'the retry, as the history records it')
  t.match(charge!.attempts[0]!.error, { name: 'java.lang.IllegalStateException', message: 'card network busy (attempt 1)', retryable: true },
    'a plain Java exception is named by its class')
  t.equal(charge!.input, 720)
})

t.test('a failure carries the ApplicationFailure\'s type and its non-retryable flag', async (t) => {
  const ran = await post(t, '/workflow/run', '/workflow/run', { catalog, workflowName: 'refund', input: { orderId: 'o-9' } })
  t.equal(ran.status, 200)
  t.equal(ran.body.status, 'failed')
  t.match(ran.body.errorDetails, { name: 'RefundWindowClosed', message: 'order o-9 is past its refund window', retryable: false, activityId: 'Refund' })

  const { trace } = await traceOf(t, ran.body.workflowId as string)
  t.same(trace.nodes.map((n) => [n.name, n.status]), [['Refund', 'failed']])
  const attempts = trace.nodes[0]!.attempts
  t.same(attempts.map((a) => a.status), ['unknown', 'failed'], 'retried once, then refused for good')
  t.match(attempts[0]!.error, { name: 'RefundServiceBusy', retryable: true })
  t.match(attempts[1]!.error, { name: 'RefundWindowClosed', retryable: false })
})
