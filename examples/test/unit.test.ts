/**
 * Unit tests without a server: a step or evaluator is a plain async function. Its input and output
 * are validated against its schemas exactly as in a run (same ValidationError, same message); the
 * context is attempt 1 with a no-op heartbeat unless the test sets fields of it.
 */
import t from 'tap'
import { FatalError, ValidationError } from '@flowport/worker'
import { greet } from '../src/hello/steps.js'
import { unstable } from '../src/flaky/steps.js'
import { detonate } from '../src/explode/steps.js'
import { lengthScore } from '../src/scored/evaluators.js'
import { classify } from '../src/triage/steps.js'
import { categoryMatches } from '../src/triage/evaluators.js'

t.test('a step is called with its input and returns its output', async (t) => {
  t.same(await greet({ name: 'Ada' }), { greeting: 'Hello, Ada!' })
})

t.test('an input that does not match the schema is a ValidationError, as in a run', async (t) => {
  const err = await greet({ name: 42 } as never).then(() => null, (e: unknown) => e)
  t.ok(err instanceof ValidationError, 'ValidationError')
  t.ok(err instanceof FatalError, 'a FatalError: a run would not retry it')
  t.equal((err as Error).name, 'ValidationError')
  t.equal((err as Error).message, 'Invalid input of step greet: /name: Expected string')
})

t.test('with the workflow named, the message names the activity as the worker does', async (t) => {
  await t.rejects(unstable({ failures: -1 }, { workflowName: 'flaky' }), {
    name: 'ValidationError',
    message: 'Invalid input of step flaky#unstable: /failures: Expected integer to be greater or equal to 0'
  })
})

t.test('the context sets the attempt: a retrying step is tested attempt by attempt', async (t) => {
  await t.rejects(unstable({ failures: 2 }), { name: 'TransientError', message: 'Attempt 1 of 3 fails on purpose' })
  await t.rejects(unstable({ failures: 2 }, { attempt: 2 }), { name: 'TransientError' })
  t.same(await unstable({ failures: 2 }, { attempt: 3 }), { attempts: 3 })
})

t.test("a step's own error reaches the test unchanged", async (t) => {
  const err = await detonate({ message: 'boom' }).then(() => null, (e: unknown) => e)
  t.equal((err as Error).name, 'ExplosionError')
  t.equal((err as Error).message, 'boom')
  t.ok(err instanceof FatalError)
})

t.test('an evaluator returns its evaluation, checked against EvaluationSchema', async (t) => {
  const text = 'Flowport runs workflows. It also traces them.'
  const evaluation = await lengthScore({ text, summary: 'Flowport runs workflows.' })
  t.equal(evaluation.score, 1 - 24 / text.length)
  t.equal(evaluation.reasoning, `summary has 24 of ${text.length} characters`)
  await t.rejects(lengthScore({ text } as never), { name: 'ValidationError', message: /^Invalid input of evaluator lengthScore: \/summary: Expected required property/ })
})

// triage has all three kinds of test: these unit tests, a workflow test (workflow.test.ts) and an
// eval over its datasets (src/triage/eval.ts, run by `flowport eval triage`).
t.test('triage: the classify step sorts a ticket by its keywords', async (t) => {
  t.same(await classify({ text: 'I was charged twice, please refund me ASAP' }), { category: 'billing', urgency: 'high' })
  t.same(await classify({ text: 'Please add CSV export' }), { category: 'other', urgency: 'normal' })
})

t.test("triage: the categoryMatches evaluator compares with the case's ground truth", async (t) => {
  const output = { category: 'bug', urgency: 'normal', reply: 'Sorry about that!' }
  t.match(await categoryMatches({ input: {}, output, groundTruth: { category: 'bug' } }), { score: 1, value: true })
  t.match(await categoryMatches({ input: {}, output, groundTruth: { category: 'feature' } }), { score: 0, value: false, reasoning: 'expected feature, got bug' })
})
