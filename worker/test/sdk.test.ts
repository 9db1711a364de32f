/**
 * SDK features through a real worker and engine: typed steps as `<workflow>#<step>` activities,
 * validation at every boundary, retry policies, handlers with schemas, cleanup on cancel.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { WorkflowFailedError, WorkflowUpdateFailedError, type Client } from '@temporalio/client'
import { ActivityFailure, ApplicationFailure, CancelledFailure } from '@temporalio/common'
import { startWorker, type WorkerHandle } from '../src/index.js'
import { connectClient, eventsOf, scheduledActivities, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, uniqueCatalog } from './helpers/engine.js'
import { recordingLogger } from './helpers/logger.js'
import { fixture, projectWith } from './helpers/fixtures.js'

const catalogId = uniqueCatalog('sdk')
let worker: WorkerHandle
let client: Client

t.before(async () => {
  worker = await startWorker({
    address: TEMPORAL_ADDRESS,
    namespace: TEMPORAL_NAMESPACE,
    catalogId,
    workflowsDir: fixture('sdk'),
    packagesFrom: projectWith(t, { '@fixture/shared-steps': 'shared-steps' }),
    logger: recordingLogger()
  })
  client = await connectClient(t)
})
t.teardown(async () => { await worker?.shutdown() })

const start = async (workflow: string, input: unknown) =>
  await client.workflow.start(workflow, { taskQueue: catalogId, workflowId: `${workflow}-${randomUUID()}`, args: [input] })

/** The failure a run ended with (WorkflowFailedError.cause). */
async function failureOf (workflow: string, input: unknown): Promise<{ cause: unknown, handle: Awaited<ReturnType<typeof start>> }> {
  const handle = await start(workflow, input)
  const err = await handle.result().then(() => undefined, (e: unknown) => e)
  if (!(err instanceof WorkflowFailedError)) throw new Error(`expected ${workflow} to fail, got ${String(err)}`)
  return { cause: err.cause, handle }
}

t.test('a step call runs the activity <workflow>#<step> with typed input and output', async (t) => {
  const handle = await start('checks', { mode: 'ok' })
  t.same(await handle.result(), { doubled: 42 })
  t.same(await scheduledActivities(handle), ['checks#double'])
})

t.test('validation failures name the boundary and are not retried', async (t) => {
  const input = await failureOf('checks', { mode: 'nope' })
  t.ok(input.cause instanceof ApplicationFailure)
  t.equal((input.cause as ApplicationFailure).type, 'ValidationError')
  t.match((input.cause as ApplicationFailure).message, /^Invalid input of workflow checks: \/mode/)

  for (const [mode, pattern] of [['stepInput', /^Invalid input of step checks#double: \/n: Expected integer/], ['stepOutput', /^Invalid output of step checks#double: \/doubled: Expected integer/]] as const) {
    const { cause, handle } = await failureOf('checks', { mode })
    t.ok(cause instanceof ActivityFailure, `${mode}: the step failed`)
    const inner = (cause as ActivityFailure).cause as ApplicationFailure
    t.equal(inner.type, 'ValidationError')
    t.ok(inner.nonRetryable, `${mode}: not retryable`)
    t.match(inner.message, pattern)
    const started = await eventsOf(handle, 'activityTaskStarted')
    t.equal(started.length, 1, `${mode}: one attempt only`)
  }

  const output = await failureOf('checks', { mode: 'workflowOutput' })
  t.equal((output.cause as ApplicationFailure).type, 'ValidationError')
  t.match((output.cause as ApplicationFailure).message, /^Invalid output of workflow checks: \/doubled: Expected integer/)
})

t.test('a step retry policy overrides the default', async (t) => {
  // Each retry costs about a second on the dev server, whatever the interval: keep them few.
  const ok = await start('retries', { step: 'countdown', succeedOn: 2 })
  t.same(await ok.result(), { result: { attempt: 2 } })

  const { cause } = await failureOf('retries', { step: 'countdown', succeedOn: 3 })
  const inner = (cause as ActivityFailure).cause as ApplicationFailure
  t.equal(inner.message, 'attempt 2 fails', 'gave up after maximumAttempts: 2')
  t.equal(inner.type, 'Error')

  const plain = await start('retries', { step: 'plain' })
  await plain.result()
  const [scheduled] = await eventsOf(plain, 'activityTaskScheduled')
  t.equal(Number(scheduled?.startToCloseTimeout?.seconds), 300, 'default startToCloseTimeout: 5 minutes')
  t.equal(scheduled?.retryPolicy?.maximumAttempts, 5, 'default maximumAttempts: 5')
  t.equal(scheduled?.retryPolicy?.backoffCoefficient, 2)
})

t.test('FatalError is not retried and keeps its name as the failure type', async (t) => {
  const { cause, handle } = await failureOf('retries', { step: 'fatal' })
  t.ok(cause instanceof ActivityFailure)
  t.equal((cause as ActivityFailure).activityType, 'retries#fatal')
  const inner = (cause as ActivityFailure).cause as ApplicationFailure
  t.equal(inner.type, 'Unrecoverable')
  t.equal(inner.message, 'cannot go on')
  t.ok(inner.nonRetryable)
  t.equal((await eventsOf(handle, 'activityTaskStarted')).length, 1)
})

t.test('calling a step that is not registered for the workflow fails the run clearly', async (t) => {
  const { cause } = await failureOf('stray', {})
  t.equal((cause as ApplicationFailure).type, 'StepNotFoundError')
  t.match((cause as ApplicationFailure).message, /Workflow stray has no step or evaluator "double"/)
})

t.test('a shared step from a package runs under the calling workflow\'s name', async (t) => {
  const handle = await start('usesShared', { text: 'hey' })
  t.same(await handle.result(), { text: 'HEY!' })
  t.same(await scheduledActivities(handle), ['usesShared#shout'])
})

t.test('signals, queries and updates are checked against their schemas', async (t) => {
  const handle = await start('counter', { start: 1 })
  await handle.signal('add', { n: 2 })
  await handle.signal('add', { n: 'two' }) // invalid: dropped, the run goes on
  t.same(await handle.query('total'), { total: 3 })
  t.same(await handle.query('peek', { plus: 10 }), { total: 13 }, 'query with a payload')
  await t.rejects(handle.query('peek', { plus: 'x' }), /Invalid payload of query peek: \/plus/)
  await t.rejects(handle.query('broken'), /Invalid result of query broken: \/total: Expected integer/)

  t.same(await handle.executeUpdate('set', { args: [{ total: 7 }] }), { previous: 3 })
  const rejected = await handle.executeUpdate('set', { args: [{ total: -1 }] }).catch((e: unknown) => e)
  t.ok(rejected instanceof WorkflowUpdateFailedError)
  t.match(((rejected as WorkflowUpdateFailedError).cause as Error).message, /Invalid payload of update set: \/total: Expected integer to be greater or equal to 0/)
  const unlucky = await handle.executeUpdate('set', { args: [{ total: 666 }] }).catch((e: unknown) => e)
  t.equal(((unlucky as WorkflowUpdateFailedError).cause as Error).message, 'unlucky number', 'the validator\'s message reaches the caller')
  const failed = await handle.executeUpdate('fail').catch((e: unknown) => e)
  t.equal(((failed as WorkflowUpdateFailedError).cause as Error).message, 'update handler failed', 'a failing handler fails the update only')

  await handle.signal('finish')
  t.same(await handle.result(), { total: 7 })
  const accepted = await eventsOf(handle, 'workflowExecutionUpdateAccepted')
  t.equal(accepted.length, 2, 'rejected updates never reach the history')
})

t.test('a stop runs cleanup (with steps) and the run ends canceled', async (t) => {
  const handle = await start('counter', { start: 5 })
  t.same(await handle.query('total'), { total: 5 }, 'running')
  await handle.cancel()
  const err = await handle.result().catch((e: unknown) => e)
  t.ok(err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure, 'result is a cancellation')
  t.equal((await handle.describe()).status.name, 'CANCELLED')
  t.same(await scheduledActivities(handle), ['counter#saveTotal'])
  t.equal((await eventsOf(handle, 'activityTaskCompleted')).length, 1, 'the cleanup step completed')
})
