/**
 * The engine breaker's decision on one call's status: an UNAVAILABLE is only a suspicion (a
 * passed deadline of a call other than GetSystemInfo is nothing), and the breaker opens when its own health probe fails too. The probe is a
 * function of the test here, because an engine that answers GetSystemInfo while failing one call
 * with UNAVAILABLE is a fault only its store makes for one query (test/query-values.test.ts makes
 * the real engine do that); the channel is a fake that answers the status under test.
 */
import t, { type Test } from 'tap'
import { InterceptingCall, Metadata, status, type Interceptor, type InterceptorOptions, type StatusObject } from '@grpc/grpc-js'

/** What an interceptor's next call is (grpc-js does not export the interface by name). */
type NextCall = ReturnType<Parameters<Interceptor>[1]>
import { EngineBreaker, EngineBreakerOpenError } from '../plugins/app/engine/breaker.js'
import { fromEngineError } from '../plugins/app/engine/errors.js'

const SERVICE = '/temporal.api.workflowservice.v1.WorkflowService'

/** A probe the test answers: `pass()` as an engine that answers, `fail()` as one that does not. */
function probe () {
  const asked: Array<{ pass: () => void, fail: () => void }> = []
  const ask = async () => { await new Promise<void>((resolve, reject) => { asked.push({ pass: resolve, fail: () => { reject(new Error('unreachable')) } }) }) }
  return { ask, asked }
}

/** One call of `method` through the breaker's interceptors, answered `code` by the channel; resolves with what the caller receives. */
async function callAnswered (breaker: EngineBreaker, method: string, code: status, details: string): Promise<StatusObject> {
  const passThrough: Interceptor = (options, nextCall) => new InterceptingCall(nextCall(options))
  const [outer, retry, watch] = breaker.interceptors(passThrough) as [Interceptor, Interceptor, Interceptor]
  const channel = (): NextCall => ({
    start (_metadata, listener) { setImmediate(() => { listener?.onReceiveStatus?.({ code, details, metadata: new Metadata() }) }) },
    sendMessage () {},
    sendMessageWithContext () {},
    startRead () {},
    halfClose () {},
    cancelWithStatus () {},
    getPeer: () => '',
    getAuthContext: () => null
  })
  const options = { method_definition: { path: `${SERVICE}/${method}` } } as unknown as InterceptorOptions
  const call = outer(options, (o1) => retry(o1, (o2) => watch(o2, channel)))
  return await new Promise((resolve) => { call.start(new Metadata(), { onReceiveStatus: resolve }) })
}

const settled = async () => { await new Promise((resolve) => setImmediate(resolve)) }

function breakerWith (t: Test) {
  const answers = probe()
  const breaker = new EngineBreaker(answers.ask)
  t.teardown(() => { breaker.stop() })
  return { breaker, asked: answers.asked }
}

t.test('a call\'s UNAVAILABLE while the probe answers leaves the breaker closed', async (t) => {
  const { breaker, asked } = breakerWith(t)
  const received = await callAnswered(breaker, 'CountWorkflowExecutions', status.UNAVAILABLE, 'SQL logic error: unrecognized token')
  t.equal(received.code, status.UNAVAILABLE, 'the caller gets its own answer')
  t.equal(asked.length, 1, 'the breaker asks its probe')
  t.notOk(breaker.isOpen, 'and waits for it')
  asked[0]!.pass()
  await settled()
  t.notOk(breaker.isOpen, 'the probe answered: still closed')
  t.equal(await breaker.run(async () => 'served', () => {}), 'served', 'calls go through')
})

t.test('a call\'s UNAVAILABLE when the probe fails opens the breaker and releases calls in flight', async (t) => {
  const { breaker, asked } = breakerWith(t)
  const inFlight = breaker.run(async () => await new Promise(() => {}), () => {})
  await callAnswered(breaker, 'DescribeWorkflowExecution', status.UNAVAILABLE, 'No connection established')
  await callAnswered(breaker, 'ListWorkflowExecutions', status.UNAVAILABLE, 'No connection established')
  t.equal(asked.length, 1, 'one probe answers for every suspicion meanwhile')
  asked[0]!.fail()
  t.ok(await inFlight.then(() => false, (err: unknown) => err instanceof EngineBreakerOpenError), 'the call in flight is released')
  t.ok(breaker.isOpen, 'open')
})

t.test('a call past its deadline says nothing; GetSystemInfo failing opens at once', async (t) => {
  const { breaker, asked } = breakerWith(t)
  await callAnswered(breaker, 'GetWorkflowExecutionHistory', status.DEADLINE_EXCEEDED, 'Deadline exceeded')
  t.equal(asked.length, 0, 'a long call past its deadline asks no probe (a busy engine still answers)')
  t.notOk(breaker.isOpen)
  await callAnswered(breaker, 'GetSystemInfo', status.DEADLINE_EXCEEDED, 'Deadline exceeded')
  t.ok(breaker.isOpen, 'GetSystemInfo unanswered is the health check failing: open without a probe')
  t.equal(asked.length, 0)
})

t.test('any other answer of the engine never opens the breaker, and closes an open one', async (t) => {
  const { breaker, asked } = breakerWith(t)
  for (const code of [status.INVALID_ARGUMENT, status.NOT_FOUND, status.FAILED_PRECONDITION, status.ALREADY_EXISTS]) {
    await callAnswered(breaker, 'StartWorkflowExecution', code, 'refused')
  }
  t.equal(asked.length, 0, 'no probe asked')
  t.notOk(breaker.isOpen)
  breaker.open('test')
  await callAnswered(breaker, 'DescribeWorkflowExecution', status.NOT_FOUND, 'not found')
  t.notOk(breaker.isOpen, 'an answer closes it')
})

t.test('an engine failure a request gets alone is its own answer, never the 503 of an engine away', async (t) => {
  const failure = (code: status, details: string) => Object.assign(new Error(details), { code, details, metadata: new Metadata() })
  t.match(fromEngineError(failure(status.UNAVAILABLE, 'CountWorkflowExecutions operation failed.: SQL logic error: unrecognized token: "\'a" (1)')),
    { statusCode: 400, error: 'ValidationError' }, 'a query the store cannot run: the client\'s mistake')
  t.match(fromEngineError(failure(status.UNAVAILABLE, 'the store failed')), { statusCode: 502, error: 'EngineUnavailableError' }, 'another UNAVAILABLE: a 502 for this request')
  t.match(fromEngineError(new EngineBreakerOpenError()), { statusCode: 503, error: 'EngineUnavailableError' }, 'the open breaker: the 503')
})
