/**
 * Every example through a real worker: these are the fixtures of the API's end-to-end tests, so
 * names, inputs, outputs and failures are pinned here.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { WorkflowFailedError, WorkflowUpdateFailedError, type Client, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client'
import { ActivityFailure, ApplicationFailure, CancelledFailure } from '@temporalio/common'
import { startWorker, type WorkerHandle } from '@flowport/worker'
import { catalogWorkflowId } from '@flowport/core/contract'
import { connect, eventsOf, quietLogger, REPOSITORY_ROOT, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, uniqueCatalog } from './helpers.js'

const catalogId = uniqueCatalog('examples')
let worker: WorkerHandle
let client: Client

t.before(async () => {
  worker = await startWorker({ address: TEMPORAL_ADDRESS, namespace: TEMPORAL_NAMESPACE, catalogId, packagesFrom: REPOSITORY_ROOT, logger: quietLogger })
  const connection = await connect()
  client = connection.client
  t.teardown(async () => {
    await client.workflow.getHandle(catalogWorkflowId(catalogId)).terminate('test finished').catch(() => {})
    await worker.shutdown()
    await connection.close()
  })
})

const start = async (workflow: string, input: unknown): Promise<WorkflowHandleWithFirstExecutionRunId> =>
  await client.workflow.start(workflow, { taskQueue: catalogId, workflowId: `${workflow}-${randomUUID()}`, args: [input] })

async function failure (handle: WorkflowHandle): Promise<unknown> {
  const err = await handle.result().then(() => undefined, (e: unknown) => e)
  if (!(err instanceof WorkflowFailedError)) throw new Error(`expected the run to fail, got ${String(err)}`)
  return err.cause
}

const activityTypes = async (handle: WorkflowHandle): Promise<string[]> =>
  (await eventsOf(handle, 'activityTaskScheduled')).map((a) => String(a.activityType?.name))

t.test('the catalog lists every example with its package as source', async (t) => {
  const examples = worker.catalog.workflows.filter((w) => w.source.package === '@flowport/examples')
  t.same(examples.map((w) => w.name), ['approval', 'explode', 'flaky', 'hello', 'parent', 'pipeline', 'relay', 'scored', 'sleepy', 'triage'])
  t.same(examples.find((w) => w.name === 'hello')?.aliases, ['hi'])
  t.same(examples.find((w) => w.name === 'scored')?.evaluators.map((e) => e.name), ['lengthScore'])
  t.same(examples.find((w) => w.name === 'triage')?.eval?.evaluators.map((e) => [e.name, e.criticality]),
    [['categoryMatches', 'required'], ['replyBrevity', 'required'], ['urgencyLevel', 'informational']], 'an eval beside the workflow is published')
  t.notOk(examples.some((w) => w.name !== 'triage' && 'eval' in w), 'and no eval where there is none')
  t.same(examples.find((w) => w.name === 'approval')?.updates.map((u) => u.name), ['relabel'])
  t.same(examples.find((w) => w.name === 'pipeline')?.steps.map((s) => [s.name, s.local]), [['localStage', true], ['stage', false]], 'the catalog says which steps are local')
})

t.test('pipeline: local steps leave one marker each and no activity task; regular ones are activities', async (t) => {
  const local = await start('pipeline', { stages: 3 })
  t.same(await local.result(), { value: 3 })
  t.same(await activityTypes(local), [], 'no activity task for a local step')
  const markers = await eventsOf(local, 'markerRecorded')
  t.same(markers.map((m) => m.markerName), ['core_local_activity', 'core_local_activity', 'core_local_activity'])
  const remote = await start('pipeline', { stages: 2, local: false })
  t.same(await remote.result(), { value: 2 })
  t.same(await activityTypes(remote), ['pipeline#stage', 'pipeline#stage'])
})

t.test('hello greets through its step hello#greet, also under its alias', async (t) => {
  const handle = await start('hello', { name: 'Ada' })
  t.same(await handle.result(), { greeting: 'Hello, Ada!' })
  t.same(await activityTypes(handle), ['hello#greet'])
  const alias = await start('hi', { name: 'Bo' })
  t.same(await alias.result(), { greeting: 'Hello, Bo!' })
  t.same(await activityTypes(alias), ['hello#greet'], 'steps are named after the canonical workflow')
  const invalid = await failure(await start('hello', { name: 42 }))
  t.equal((invalid as ApplicationFailure).type, 'ValidationError')
})

t.test('flaky succeeds on the attempt after its failures', async (t) => {
  const handle = await start('flaky', { failures: 1 })
  t.same(await handle.result(), { attempts: 2 })
  t.same(await (await start('flaky', { failures: 0 })).result(), { attempts: 1 })
})

t.test('explode fails with a non-retryable ExplosionError carrying the message', async (t) => {
  const handle = await start('explode', { message: 'kaboom' })
  const cause = await failure(handle)
  t.ok(cause instanceof ActivityFailure)
  t.equal((cause as ActivityFailure).activityType, 'explode#detonate')
  const inner = (cause as ActivityFailure).cause as ApplicationFailure
  t.equal(inner.type, 'ExplosionError')
  t.equal(inner.message, 'kaboom')
  t.ok(inner.nonRetryable)
  t.equal((await eventsOf(handle, 'activityTaskStarted')).length, 1, 'one attempt')
  t.equal((await handle.describe()).status.name, 'FAILED')
})

t.test('approval: query, update (validator rejects an empty label), signal, result', async (t) => {
  const handle = await start('approval', { label: 'draft' })
  t.same(await handle.query('state'), { label: 'draft', approved: false, approvedBy: null })
  t.same(await handle.executeUpdate('relabel', { args: [{ label: 'final' }] }), { previous: 'draft' })
  const empty = await handle.executeUpdate('relabel', { args: [{ label: '' }] }).catch((e: unknown) => e)
  t.ok(empty instanceof WorkflowUpdateFailedError)
  t.equal(((empty as WorkflowUpdateFailedError).cause as Error).message, 'label must not be empty')
  const wrong = await handle.executeUpdate('relabel', { args: [{ label: 5 }] }).catch((e: unknown) => e)
  t.match(((wrong as WorkflowUpdateFailedError).cause as Error).message, /Invalid payload of update relabel: \/label/)
  await handle.signal('approve', { by: 'Grace' })
  t.same(await handle.result(), { label: 'final', approvedBy: 'Grace' })
  t.same(await handle.query('state'), { label: 'final', approved: true, approvedBy: 'Grace' }, 'queryable after completion')
})

t.test('approval: a graceful stop releases the hold and the run ends canceled', async (t) => {
  const handle = await start('approval', { label: 'pending' })
  t.same(await handle.query('state'), { label: 'pending', approved: false, approvedBy: null })
  await handle.cancel()
  const cause = await failure(handle)
  t.ok(cause instanceof CancelledFailure)
  t.equal((await handle.describe()).status.name, 'CANCELLED')
  t.same(await activityTypes(handle), ['approval#releaseHold'])
  const [completed] = await eventsOf(handle, 'activityTaskCompleted')
  t.ok(completed, 'releaseHold completed before the run ended')
})

t.test('sleepy runs its ticks with durable timers in between', async (t) => {
  const handle = await start('sleepy', { steps: 3, delayMs: 20 })
  t.same(await handle.result(), { ticks: 3 })
  t.same(await activityTypes(handle), ['sleepy#tick', 'sleepy#tick', 'sleepy#tick'])
  t.equal((await eventsOf(handle, 'timerStarted')).length, 2)
  const noDelay = await start('sleepy', { steps: 2, delayMs: 0 })
  t.same(await noDelay.result(), { ticks: 2 })
  t.equal((await eventsOf(noDelay, 'timerStarted')).length, 0, 'no zero-length timers')
  const tooMany = await failure(await start('sleepy', { steps: 101, delayMs: 0 }))
  t.match((tooMany as ApplicationFailure).message, /Invalid input of workflow sleepy: \/steps/)
})

t.test('relay continues as new until hops reaches 0', async (t) => {
  const handle = await start('relay', { hops: 3 })
  t.same(await handle.result(), { hops: 0 })
  const runs: string[] = []
  let runId: string | undefined = handle.firstExecutionRunId
  while (runId !== undefined) {
    runs.push(runId)
    const run = client.workflow.getHandle(handle.workflowId, runId)
    const [continued] = await eventsOf(run, 'workflowExecutionContinuedAsNew')
    runId = continued?.newExecutionRunId ?? undefined
  }
  t.equal(runs.length, 4, 'hops 3, 2, 1, 0')
  t.equal((await client.workflow.getHandle(handle.workflowId, runs[0]).describe()).status.name, 'CONTINUED_AS_NEW')
})

t.test('parent runs hello as a child workflow on the same task queue', async (t) => {
  const handle = await start('parent', { name: 'Cy' })
  t.same(await handle.result(), { child: { greeting: 'Hello, Cy!' } })
  const [initiated] = await eventsOf(handle, 'startChildWorkflowExecutionInitiated')
  t.equal(initiated?.workflowType?.name, 'hello')
  t.equal(initiated?.taskQueue?.name, catalogId)
  t.match(initiated?.workflowId, new RegExp(`^${handle.workflowId}-hello-`))
  t.same(await activityTypes(handle), [], 'the step ran in the child')
})

t.test('scored summarizes in a step and scores with an evaluator', async (t) => {
  const handle = await start('scored', { text: 'Flowport runs workflows. It also publishes a catalog.' })
  const output = await handle.result() as { summary: string, score: number }
  t.equal(output.summary, 'Flowport runs workflows.')
  t.ok(output.score > 0 && output.score < 1, 'a score between 0 and 1')
  t.same(await activityTypes(handle), ['scored#summarize', 'scored#lengthScore'])
})
