/**
 * Execution traces end to end: the shared test worker writes them to a temporary directory and to
 * a real S3-compatible server (moto, started by scripts/test.ts); the API names them in results
 * and serves them from GET …/trace-log. Each example's trace must match what its run did.
 */
import t, { type Test } from 'tap'
import { readFile } from 'node:fs/promises'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Trace, TraceNode } from '@flowport/core/trace'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { testCatalog } from './helpers/env.js'
import { call, eventually, newId, start, waitClosed } from './helpers/workflows.js'

interface TraceLog { workflowId: string, runId: string, source: string, location: string | null, partial: boolean, trace: Trace }

let app: App
t.before(async () => { app = await build(t) })

const catalog = testCatalog()

async function run (t: Test, workflowName: string, input: unknown, workflowId = newId(workflowName)) {
  const res = await call(t, app, { method: 'POST', url: '/workflow/run', route: '/workflow/run', payload: { workflowName, input, workflowId, catalog } })
  t.equal(res.status, 200, `${workflowName} ran`)
  return res.body as { workflowId: string, runId: string, status: string, output: unknown, trace: { destinations: { local: string | null, remote: string | null } } | null }
}

async function traceLog (t: Test, workflowId: string, runId?: string) {
  const url = runId === undefined ? `/workflow/${encodeURIComponent(workflowId)}/trace-log` : `/workflow/${encodeURIComponent(workflowId)}/runs/${runId}/trace-log`
  const route = runId === undefined ? '/workflow/{id}/trace-log' : '/workflow/{id}/runs/{rid}/trace-log'
  return await call(t, app, { method: 'GET', url, route })
}

/** The trace once the worker has stored it in the bucket (it writes at the close; terminated runs at its next sweep). */
async function storedTrace (t: Test, workflowId: string, runId?: string): Promise<TraceLog> {
  const res = await eventually(async () => await traceLog(t, workflowId, runId), (r) => r.status === 200 && (r.body as TraceLog).source === 'remote')
  t.equal(res.status, 200)
  const log = res.body as TraceLog
  t.equal(log.source, 'remote', 'read from the bucket')
  t.equal(log.partial, false)
  return log
}

const steps = (trace: Trace) => trace.nodes.filter((n) => n.kind !== 'child')
const uniqueIds = (t: Test, trace: Trace) => t.equal(new Set(trace.nodes.map((n) => n.id)).size, trace.nodes.length, 'node ids are unique')

t.test('hello: the result names both destinations; the trace matches the run, locally and in the bucket', async (t) => {
  const result = await run(t, 'hello', { name: 'Ada' })
  const { local } = result.trace!.destinations
  t.ok(local?.startsWith(process.env.SERVICE_TRACE_DIR!), 'local path under SERVICE_TRACE_DIR')
  const log = await storedTrace(t, result.workflowId)
  // The bucket is named once the trace is there (the answer at the close may come before the keeper wrote it).
  const reread = await call(t, app, { method: 'GET', url: `/workflow/${result.workflowId}/result`, route: '/workflow/{id}/result' })
  const { remote } = reread.body.trace.destinations as { remote: string | null }
  t.match(remote, /^s3:\/\/flowport-traces\/traces\/hello-.+~[0-9a-f]{16}\/[0-9a-f-]{36}\.json$/)
  t.equal(log.location, remote)
  const { workflow, nodes } = log.trace
  t.equal(log.trace.version, 1)
  t.match(workflow, { name: 'hello', workflowId: result.workflowId, runId: result.runId, catalog, status: 'completed', input: { name: 'Ada' }, output: { greeting: 'Hello, Ada!' }, error: null, parent: null })
  t.ok(workflow.startTime !== null && workflow.closeTime !== null && workflow.startTime <= workflow.closeTime)
  t.equal(nodes.length, 1)
  t.match(nodes[0], { id: `${result.runId}/1`, kind: 'step', name: 'greet', type: 'hello#greet', phase: 'run', status: 'completed', input: { name: 'Ada' }, output: { greeting: 'Hello, Ada!' }, error: null })
  t.same(nodes[0].attempts.map((a) => [a.attempt, a.status]), [[1, 'completed']])
  const onDisk = JSON.parse(await readFile(local!, 'utf8')) as Trace
  t.same(onDisk, log.trace, 'the local file holds the same document')
})

t.test('flaky: every attempt with its own error, not only the last', async (t) => {
  const result = await run(t, 'flaky', { failures: 2 })
  t.equal(result.status, 'completed')
  const { trace } = await storedTrace(t, result.workflowId)
  t.equal(trace.nodes.length, 1, 'one node for the retried step')
  const [node] = trace.nodes
  t.equal(node.status, 'completed')
  t.same(node.attempts.map((a) => [a.attempt, a.status]), [[1, 'failed'], [2, 'failed'], [3, 'completed']])
  for (const attempt of node.attempts.slice(0, 2)) {
    t.ok(attempt.error?.message, `attempt ${attempt.attempt} keeps its error`)
    t.ok(attempt.startTime !== null && attempt.endTime !== null && attempt.startTime <= attempt.endTime, `attempt ${attempt.attempt} has its times`)
  }
  t.ok(node.attempts[0].endTime! <= node.attempts[1].startTime!, 'attempts in order')
})

t.test('local steps: one node each, with input, output, times and every attempt', async (t) => {
  const result = await run(t, 'pipeline', { stages: 2, failAttempts: 1 })
  t.same(result.output, { value: 2 })
  const { trace } = await storedTrace(t, result.workflowId)
  uniqueIds(t, trace)
  t.equal(trace.nodes.length, 2, 'one node per local step')
  for (const [i, node] of trace.nodes.entries()) {
    t.match(node, { kind: 'step', name: 'localStage', type: 'pipeline#localStage', phase: 'run', status: 'completed', input: { value: i, failAttempts: 1 }, output: { value: i + 1 }, error: null })
    t.same(node.attempts.map((a) => [a.attempt, a.status]), [[1, 'failed'], [2, 'completed']], `stage ${i + 1}: the failed attempt and the last one`)
    t.match(node.attempts[0].error, { message: 'attempt 1 of localStage fails on purpose' })
    t.ok(node.startTime !== null && node.endTime !== null && node.startTime <= node.endTime, 'the step has its times')
    t.equal(node.scheduledTime, node.attempts[0].startTime, 'scheduled when its first attempt began')
  }
})

t.test('a local step that fails for good: the run fails, the node has its input and every failed attempt', async (t) => {
  const result = await run(t, 'pipeline', { stages: 1, failAttempts: 5 })
  t.equal(result.status, 'failed')
  const { trace } = await storedTrace(t, result.workflowId)
  t.equal(trace.nodes.length, 1)
  const [node] = trace.nodes
  t.match(node, { name: 'localStage', status: 'failed', input: { value: 0, failAttempts: 5 }, output: null, error: { message: 'attempt 5 of localStage fails on purpose' } })
  t.same(node.attempts.map((a) => [a.attempt, a.status]), [1, 2, 3, 4, 5].map((n) => [n, 'failed']))
})

t.test('explode: the failure with its name, the failed step, no stack', async (t) => {
  const result = await run(t, 'explode', { message: 'boom' })
  t.equal(result.status, 'failed')
  const { trace } = await storedTrace(t, result.workflowId)
  t.match(trace.workflow, { status: 'failed', output: null, error: { name: 'ExplosionError', message: 'boom', retryable: false } })
  t.match(trace.nodes[0], { name: 'detonate', status: 'failed', error: { name: 'ExplosionError', message: 'boom' } })
  t.equal(trace.nodes[0].attempts.length, 1, 'a FatalError is not retried')
  t.notMatch(JSON.stringify(trace), /\bat .+:\d+:\d+/, 'no stack trace')
})

t.test('parent: the child nested under the parent, linked to its own run and trace', async (t) => {
  const result = await run(t, 'parent', { name: 'Grace' })
  const { trace } = await storedTrace(t, result.workflowId)
  const child = trace.nodes.find((n) => n.kind === 'child') as TraceNode
  t.match(child, { kind: 'child', name: 'hello', status: 'completed', input: { name: 'Grace' }, output: { greeting: 'Hello, Grace!' } })
  t.ok(child.child?.runId, 'the child run is linked')
  const childLog = await storedTrace(t, child.child!.workflowId, child.child!.runId!)
  t.same(childLog.trace.workflow.parent, { workflowId: result.workflowId, runId: result.runId }, 'the child links back')
  t.equal(childLog.trace.nodes[0].type, 'hello#greet')
  t.notOk(trace.nodes.some((n) => childLog.trace.nodes.some((c) => c.id === n.id)), 'no node id shared between parent and child')
  uniqueIds(t, trace)
})

t.test('scored: the evaluator and its score', async (t) => {
  const result = await run(t, 'scored', { text: 'The quick brown fox jumps over the lazy dog' })
  const { trace } = await storedTrace(t, result.workflowId)
  t.same(trace.nodes.map((n) => [n.kind, n.name]), [['step', 'summarize'], ['evaluator', 'lengthScore']])
  const evaluator = trace.nodes[1]
  t.equal(evaluator.evaluation?.score, (result.output as { score: number }).score)
  t.same(trace.evaluations, [{ nodeId: evaluator.id, evaluator: 'lengthScore', score: evaluator.evaluation!.score, reasoning: evaluator.evaluation!.reasoning ?? null }])
})

t.test('relay: each run of a continue-as-new chain has its trace, linked both ways', async (t) => {
  const result = await run(t, 'relay', { hops: 2 })
  const last = await storedTrace(t, result.workflowId, result.runId)
  t.equal(last.trace.workflow.status, 'completed')
  const previous = last.trace.workflow.previousRunId
  t.ok(previous, 'the last run names the one it continues')
  const before = await storedTrace(t, result.workflowId, previous!)
  t.match(before.trace.workflow, { status: 'continued_as_new', nextRunId: result.runId })
})

t.test('approval stopped: the cleanup phase after the stop request', async (t) => {
  const { workflowId } = await start(t, app, 'approval', { label: 'trace-stop' }, newId('approval'))
  const stop = await call(t, app, { method: 'PATCH', url: `/workflow/${workflowId}/stop`, route: '/workflow/{id}/stop', payload: {} })
  t.equal(stop.status, 200)
  await waitClosed(app, workflowId)
  const { trace } = await storedTrace(t, workflowId)
  t.equal(trace.workflow.status, 'canceled')
  t.ok(trace.workflow.stopRequestedTime, 'the stop request is recorded')
  const cleanup = trace.nodes.filter((n) => n.phase === 'cleanup')
  t.same(cleanup.map((n) => [n.name, n.status]), [['releaseHold', 'completed']])
  t.ok(cleanup[0].scheduledTime! >= trace.workflow.stopRequestedTime!)
})

t.test('sleepy terminated: a final trace although no workflow code ran at the end; its status matches the result', async (t) => {
  const { workflowId } = await start(t, app, 'sleepy', { steps: 3, delayMs: 60_000 }, newId('sleepy'))
  // The first tick runs before the first timer.
  await eventually(async () => await traceLog(t, workflowId), (r) => (r.body as TraceLog).trace?.nodes.length === 1)
  const res = await call(t, app, { method: 'POST', url: `/workflow/${workflowId}/terminate`, route: '/workflow/{id}/terminate', payload: { reason: 'enough' } })
  t.equal(res.status, 200)
  const { trace } = await storedTrace(t, workflowId)
  const result = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/result`, route: '/workflow/{id}/result' })
  t.equal(trace.workflow.status, (result.body as { status: string }).status)
  t.match(trace.workflow, { status: 'terminated', error: { name: 'TerminatedFailure', message: 'Workflow run was terminated: enough' } })
  t.same(steps(trace).map((n) => [n.name, n.status]), [['tick', 'completed']])
})

t.test('a run that timed out: a final trace from the sweep, status timed_out like its result', async (t) => {
  // The API sets no run timeout; a client of the engine can.
  const workflowId = newId('sleepy')
  await app.engine.client.workflow.start('sleepy', { taskQueue: catalog, workflowId, args: [{ steps: 2, delayMs: 60_000 }], workflowExecutionTimeout: '2s' })
  const { trace } = await storedTrace(t, workflowId)
  const result = await call(t, app, { method: 'GET', url: `/workflow/${workflowId}/result`, route: '/workflow/{id}/result' })
  t.equal((result.body as { status: string }).status, 'timed_out')
  t.match(trace.workflow, { status: 'timed_out', error: { name: 'TimeoutFailure' }, closeTime: String })
  t.same(steps(trace).map((n) => [n.name, n.status]), [['tick', 'completed']])
})

t.test('an open run: the trace so far, marked partial', async (t) => {
  const { workflowId, runId } = await start(t, app, 'approval', { label: 'trace-open' }, newId('approval'))
  const res = await eventually(async () => await traceLog(t, workflowId), (r) => r.status === 200)
  t.equal(res.status, 200)
  const log = res.body as TraceLog
  t.match(log, { workflowId, runId, source: 'engine', location: null, partial: true })
  t.match(log.trace.workflow, { status: 'running', closeTime: null, input: { label: 'trace-open' } })
  await app.engine.client.workflow.getHandle(workflowId).terminate('test done')
})

t.test('unknown runs and tracing switched off', async (t) => {
  const unknown = await traceLog(t, newId('nope'))
  t.equal(unknown.status, 404)
  t.equal((unknown.body as { error: string }).error, 'WorkflowNotFoundError')
  const unknownRun = await traceLog(t, newId('nope'), '00000000-0000-4000-8000-000000000000')
  t.equal((unknownRun.body as { error: string }).error, 'WorkflowNotFoundError')

  const off = await build(t, { SERVICE_TRACE_ENABLED: 'false' })
  const result = await call(t, off, { method: 'POST', url: '/workflow/run', route: '/workflow/run', payload: { workflowName: 'hello', input: { name: 'Off' }, catalog } })
  t.equal((result.body as { trace: unknown }).trace, null, 'trace is null when tracing is off')
  const res = await call(t, off, { method: 'GET', url: `/workflow/${(result.body as { workflowId: string }).workflowId}/trace-log`, route: '/workflow/{id}/trace-log' })
  t.equal(res.status, 404)
  t.equal((res.body as { error: string }).error, 'TraceNotFoundError')
})

t.test('storage down: 503 TraceStorageUnavailableError when only the bucket could have it; the local copy when there is one', async (t) => {
  const result = await run(t, 'hello', { name: 'Outage' })
  await storedTrace(t, result.workflowId)
  const deadBucket = { SERVICE_CLOUD_ENDPOINT: 'http://127.0.0.1:9', SERVICE_TRACE_DIR: mkdtempSync(join(tmpdir(), 'flowport-empty-')) }
  const down = await build(t, deadBucket)
  const res = await call(t, down, { method: 'GET', url: `/workflow/${result.workflowId}/trace-log`, route: '/workflow/{id}/trace-log' })
  t.equal(res.status, 503)
  t.equal((res.body as { error: string }).error, 'TraceStorageUnavailableError')
  t.ok(res.headers['retry-after'])

  const withLocal = await build(t, { SERVICE_CLOUD_ENDPOINT: 'http://127.0.0.1:9' })
  const local = await call(t, withLocal, { method: 'GET', url: `/workflow/${result.workflowId}/trace-log`, route: '/workflow/{id}/trace-log' })
  t.equal(local.status, 200)
  t.match(local.body, { source: 'local', partial: false, trace: { workflow: { status: 'completed' } } })
})

t.test('local only: without a bucket the API reads SERVICE_TRACE_DIR', async (t) => {
  const result = await run(t, 'hello', { name: 'Local' })
  await storedTrace(t, result.workflowId)
  const localOnly = await build(t, { SERVICE_TRACE_S3_BUCKET: '' })
  const res = await call(t, localOnly, { method: 'GET', url: `/workflow/${result.workflowId}/runs/${result.runId}/trace-log`, route: '/workflow/{id}/runs/{rid}/trace-log' })
  t.equal(res.status, 200)
  t.match(res.body, { source: 'local', location: result.trace!.destinations.local })
})
