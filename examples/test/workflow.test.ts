/**
 * Workflow tests with mocked steps (@flowport/worker/testing): each example runs on Temporal's
 * time-skipping test server (`npm test` provides its binary), with chosen steps replaced by
 * functions. A retrying step, a signal, a stop with cleanup and a one-hour timer.
 */
import t from 'tap'
import { DefaultLogger, Runtime } from '@temporalio/worker'
import { createWorkflowTester, runWorkflowTest, type WorkflowTester } from '@flowport/worker/testing'
import { approval } from '../src/approval/workflow.js'
import { flaky } from '../src/flaky/workflow.js'
import { hello } from '../src/hello/workflow.js'
import { sleepy } from '../src/sleepy/workflow.js'
import { triage } from '../src/triage/workflow.js'
import * as helloSteps from '../src/hello/steps.js'
import * as triageSteps from '../src/triage/steps.js'
import { quietLogger, REPOSITORY_ROOT } from './paths.js'

// The test workers' start and stop lines, and the test server's notices, are noise here.
Runtime.install({ logger: new DefaultLogger('ERROR') })

let tester: WorkflowTester

t.before(async () => {
  // The repository root's node_modules holds @flowport/examples (flagged `flowport.workflows`).
  tester = await createWorkflowTester({ packagesFrom: REPOSITORY_ROOT, logger: quietLogger })
  t.teardown(async () => { await tester.close() })
})

t.test('the environment skips time (the test server binary was given)', async (t) => {
  t.equal(tester.timeSkipping, true)
})

t.test('a mocked step that fails twice is retried by the engine and succeeds on attempt 3', async (t) => {
  const result = await tester.run(flaky, { failures: 0 }, {
    steps: {
      unstable: (_input: { failures: number }, { attempt }) => {
        if (attempt <= 2) throw new Error(`service down (attempt ${attempt})`)
        return { attempts: attempt }
      }
    }
  })
  t.equal(result.status, 'completed')
  t.same(result.output, { attempts: 3 })
  t.same(result.calls.map((c) => [c.step, c.attempt, c.outcome, c.mocked]), [
    ['unstable', 1, 'failed', true], ['unstable', 2, 'failed', true], ['unstable', 3, 'completed', true]
  ])
  t.same(result.calls[0]?.input, { failures: 0 }, 'the calls keep their inputs')
  t.same(result.calls[0]?.error, { name: 'Error', message: 'service down (attempt 1)' })
  const [node] = result.trace.nodes
  t.equal(node?.name, 'unstable')
  t.equal(node?.status, 'completed')
  t.same(node?.attempts.map((a) => [a.attempt, a.status]), [[1, 'failed'], [2, 'failed'], [3, 'completed']], 'the trace has every attempt')
})

t.test('triage with its classifier mocked: the reply follows the category the step gave', async (t) => {
  // Typed by the steps module: `input` is classify's input, the result must be its output.
  const result = await tester.run(triage, { text: 'Where is my invoice?' }, {
    definitions: triageSteps,
    steps: { classify: (input) => ({ category: input.text.includes('invoice') ? 'bug' : 'billing', urgency: 'high' }) }
  })
  t.equal(result.status, 'completed')
  t.same(result.output, { category: 'bug', urgency: 'high', reply: 'Sorry about that! Engineering has the report.' })
  t.same(result.calls.map((c) => [c.step, c.mocked, c.input]), [['classify', true, { text: 'Where is my invoice?' }], ['draftReply', false, { category: 'bug' }]])
})

t.test('a step not mocked runs for real', async (t) => {
  const result = await tester.run(hello, { name: 'Ada' })
  t.same(result.output, { greeting: 'Hello, Ada!' })
  t.same(result.calls.map((c) => [c.activityType, c.mocked]), [['hello#greet', false]])
})

t.test("a mock's output is validated as the step's would be: the run fails with the same ValidationError", async (t) => {
  const result = await tester.run(hello, { name: 'Ada' }, { steps: { greet: () => ({ greeting: 42 }) } })
  t.equal(result.status, 'failed')
  const cause = result.error?.cause as { name?: string, cause?: { name: string, message: string } } | null
  t.equal(cause?.cause?.name, 'ValidationError')
  t.equal(cause?.cause?.message, 'Invalid output of step hello#greet: /greeting: Expected string')
  t.equal(result.calls.length, 1, 'not retried')
})

t.test('a signal is sent after the start and the workflow completes with it', async (t) => {
  const result = await tester.run(approval, { label: 'deploy' }, { signals: [{ name: 'approve', payload: { by: 'ann' } }] })
  t.equal(result.status, 'completed')
  t.same(result.output, { label: 'deploy', approvedBy: 'ann' })
  t.same(result.calls, [], 'no step ran')
})

t.test('a stop runs the cleanup step, here mocked', async (t) => {
  const released: string[] = []
  const result = await tester.run(approval, { label: 'deploy' }, {
    steps: { releaseHold: ({ label }: { label: string }) => { released.push(label); return { released: label } } },
    during: async (handle) => {
      t.same(await handle.query('state'), { label: 'deploy', approved: false, approvedBy: null }, 'queries answer while it waits')
      await handle.cancel()
    }
  })
  t.equal(result.status, 'canceled')
  t.same(released, ['deploy'])
  t.same(result.trace.nodes.map((n) => [n.name, n.phase]), [['releaseHold', 'cleanup']])
})

t.test('a one-hour timer passes in no time', async (t) => {
  // The default execution timeout (10 minutes of workflow time) would end the run first.
  const result = await tester.run(sleepy, { steps: 2, delayMs: 3_600_000 }, { timeout: '2h' })
  t.same(result.output, { ticks: 2 })
  const [first, second] = result.trace.nodes
  const waited = Date.parse(second?.scheduledTime ?? '') - Date.parse(first?.endTime ?? '')
  t.ok(waited >= 3_600_000, `the second tick is scheduled an hour (of workflow time) after the first: ${waited} ms`)
})

t.test('runWorkflowTest: one test, its own environment', async (t) => {
  const result = await runWorkflowTest(hello, { name: 'Bo' }, { packagesFrom: REPOSITORY_ROOT, logger: quietLogger, steps: { greet: ({ name }: { name: string }) => ({ greeting: `Hi ${name}` }) } })
  t.equal(result.status, 'completed')
  t.same(result.output, { greeting: 'Hi Bo' })
  t.same(result.trace.nodes.map((n) => [n.type, n.output]), [['hello#greet', { greeting: 'Hi Bo' }]], "the trace shows the mock's output")
})

t.test('a replacement for a step that does not exist is refused', async (t) => {
  await t.rejects(tester.run(hello, { name: 'Ada' }, { steps: { great: () => ({}) } }), { message: /No step or evaluator "great" to replace/ })
})

t.test('with definitions, a replacement must name a step of them, checked before the run (plain JavaScript too)', async (t) => {
  // A step of another workflow is loaded, so only `definitions` tells that it is not one of these.
  const steps = { draftReply: () => ({ reply: 'x' }) } as never
  await t.rejects(tester.run(hello, { name: 'Ada' }, { definitions: helloSteps, steps }),
    { message: 'No step or evaluator "draftReply" in the definitions given to replace; they have: greet' })
  await t.rejects(tester.run(hello, { name: 'Ada' }, { steps: { greet: 'hi' } as never }), { message: 'The replacement of step "greet" is not a function' })
})
