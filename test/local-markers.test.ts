/**
 * Local activity markers of the Go and Java SDKs (`LocalActivity`, each with its own details
 * layout; core/src/local-markers.ts), read as steps and trace nodes like Temporal Core's. The
 * histories are written here event by event as those SDKs record them (the Go worker's end-to-end
 * test, test/go-worker.test.ts, runs a real one); Temporal Core's marker is covered by
 * test/foreign-history.test.ts and the trace tests.
 */
import t from 'tap'
import { defaultPayloadConverter } from '@temporalio/common'
import { msToTs } from '@temporalio/common/lib/time.js'
import { assembleTrace } from '@flowport/core/trace'
import { localStepMarkerData } from '@flowport/core/local-step'
import { localStepMarkerOf, stepsOf } from '@flowport/core/steps'

const payloads = (...values: unknown[]) => ({ payloads: values.map((v) => defaultPayloadConverter.toPayload(v)) })
const at = (second: number) => msToTs((1_800_000_000 + second) * 1000)

const started = { eventId: 1, eventTime: at(0), workflowExecutionStartedEventAttributes: { workflowType: { name: 'OrderWorkflow' }, taskQueue: { name: 'go-orders' }, input: payloads({ id: 7 }) } }
/** Go: detail `data` is localActivityMarkerData; a failed attempt the SDK retries after a timer has a Backoff (nanoseconds). */
const goRetried = {
  eventId: 5,
  eventTime: at(1),
  markerRecordedEventAttributes: {
    markerName: 'LocalActivity',
    details: { data: payloads({ ActivityID: '7', ActivityType: 'LookupPrice', ReplayTime: '2027-01-15T08:00:01Z', Attempt: 1, Backoff: 2_000_000_000 }) },
    failure: { message: 'price service busy', applicationFailureInfo: { type: 'Busy' } }
  }
}
const goDone = {
  eventId: 9,
  eventTime: at(4),
  markerRecordedEventAttributes: {
    markerName: 'LocalActivity',
    details: { data: payloads({ ActivityID: '7', ActivityType: 'LookupPrice', ReplayTime: '2027-01-15T08:00:04Z', Attempt: 2, Backoff: 0 }), result: payloads(1250) }
  }
}
/** Go's side effects and versions are markers too, of other names. */
const goVersion = { eventId: 10, eventTime: at(4), markerRecordedEventAttributes: { markerName: 'Version', details: { data: payloads({ ChangeID: 'x', Version: 1 }) } } }
/** Java: details `type`, `activityId`, `input`, `time`, `meta` ({firstSkd, atpt, backoff}), `result`, as test/java-worker.test.ts's real worker records them. */
const javaDone = {
  eventId: 13,
  eventTime: at(5),
  markerRecordedEventAttributes: {
    markerName: 'LocalActivity',
    details: { type: payloads('Reserve'), activityId: payloads('8'), input: payloads('seat 4'), time: payloads(1_800_000_005_000), meta: payloads({ firstSkd: 1_800_000_005_000, atpt: 1, backoff: null }), result: payloads({ reserved: true }) }
  }
}
const completed = { eventId: 15, eventTime: at(6), workflowExecutionCompletedEventAttributes: { result: payloads('done') } }
const events = [started, goRetried, goDone, goVersion, javaDone, completed]

t.test('the engine\'s objects: Go\'s and Java\'s markers read as local steps; a retried attempt is not a call of its own', async (t) => {
  t.same(localStepMarkerData(goRetried.markerRecordedEventAttributes), { activity_type: 'LookupPrice', activity_id: '7', attempt: 1, backoff: 2_000_000_000 })
  t.same(localStepMarkerData(goDone.markerRecordedEventAttributes), { activity_type: 'LookupPrice', activity_id: '7', attempt: 2 })
  t.same(localStepMarkerData(javaDone.markerRecordedEventAttributes), { activity_type: 'Reserve', activity_id: '8', attempt: 1 })
  t.equal(localStepMarkerData(goVersion.markerRecordedEventAttributes), null, 'a version marker is no step')

  const steps = stepsOf(events as never, { localStep: localStepMarkerData })
  t.same(steps.map((s) => [s.id, s.name, s.local, s.status, s.attempt, s.activityId]), [
    ['9', 'LookupPrice', true, 'completed', 2, '7'],
    ['13', 'Reserve', true, 'completed', 1, '8']
  ])
})

t.test('the API\'s JSON (payloads decoded into arrays) reads the same', async (t) => {
  const json = { markerName: 'LocalActivity', details: { data: [{ ActivityID: '7', ActivityType: 'LookupPrice', Attempt: 2, Backoff: 0 }], result: [1250] } }
  t.same(localStepMarkerOf(json), { activity_type: 'LookupPrice', activity_id: '7', attempt: 2 })
  t.same(localStepMarkerOf({ markerName: 'LocalActivity', details: { type: ['Reserve'], activityId: ['8'], meta: [{ firstSkd: 1_800_000_005_000, atpt: 3, backoff: 1.5 }] } }),
    { activity_type: 'Reserve', activity_id: '8', attempt: 3, backoff: 1.5 })
  t.equal(localStepMarkerOf({ markerName: 'LocalActivity', details: {} }), null, 'payloads left out of the stream: not readable, no step')
  t.equal(localStepMarkerOf({ markerName: 'SideEffect', details: { data: [1] } }), null)
})

t.test('the trace shows their bare output (and the input Java records) and the attempts the markers number', async (t) => {
  const trace = assembleTrace({ run: { workflowId: 'order-7', runId: 'r1' }, events: events as never, attempts: [], isEvaluator: () => false, maxValueBytes: 65536 })
  t.same(trace.nodes.map((n) => [n.id, n.name, n.type, n.status, n.output, n.input]), [
    ['r1/7', 'LookupPrice', 'LookupPrice', 'completed', 1250, null],
    ['r1/8', 'Reserve', 'Reserve', 'completed', { reserved: true }, 'seat 4']
  ])
  const [lookup] = trace.nodes
  t.same(lookup!.attempts.map((a) => [a.attempt, a.status]), [[1, 'unknown'], [2, 'completed']])
  t.equal(lookup!.endTime, new Date((1_800_000_004) * 1000).toISOString(), 'ended when its marker was recorded')
  t.match(trace.workflow, { name: 'OrderWorkflow', catalog: 'go-orders', status: 'completed', output: 'done' })
})
