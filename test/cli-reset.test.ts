/**
 * `flowport reset` and `flowport batch …` against a real API and engine.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { flowport, listening } from './helpers/flowport-cli.js'
import type { Test } from 'tap'
import type { App } from '../app.js'
import { eventually, start, waitClosed } from './helpers/workflows.js'

t.test('reset --from failed-step retries the failed run; a bad --from is a usage error', async (t) => {
  const { app, url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const dir = mkdtempSync(join(tmpdir(), 'flowport-cli-reset-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const run = await start(t, app, 'retryable', { dir })
  t.equal(await waitClosed(app, run.workflowId, run.runId), 'FAILED')
  writeFileSync(join(dir, 'fixed'), '')

  const res = await flowport(['reset', run.workflowId, '--from', 'failed-step', '--json'], { env })
  t.equal(res.code, 0, res.stderr)
  const body = JSON.parse(res.stdout)
  t.match(body, { workflowId: run.workflowId, resetFrom: { runId: run.runId, step: 'third' } })
  t.equal(await waitClosed(app, run.workflowId, body.runId), 'COMPLETED')

  const plain = await flowport(['reset', run.workflowId, '--from', 'step:second'], { env })
  t.equal(plain.code, 0)
  t.match(plain.stderr, /reset from step second; new run /)
  t.equal(await waitClosed(app, run.workflowId), 'COMPLETED', 'the run reset from step second completed')

  const fromStart = await flowport(['reset', run.workflowId, '--from', 'start', '--reapply', 'none', '--json'], { env })
  t.equal(fromStart.code, 0, fromStart.stderr)
  const restarted = JSON.parse(fromStart.stdout)
  t.match(restarted, { workflowId: run.workflowId, resetFrom: { step: 'first' } }, 'from the start: the first step runs again')
  t.not(restarted.resetFrom.runId, run.runId, 'the latest run of the id was reset')
  t.equal(await waitClosed(app, run.workflowId, restarted.runId), 'COMPLETED')

  const bad = await flowport(['reset', run.workflowId, '--from', 'yesterday'], { env })
  t.equal(bad.code, 2)
  t.match(bad.stderr, /--from must be/)
  const unknown = await flowport(['reset', run.workflowId, '--from', 'step:fourth'], { env })
  t.equal(unknown.code, 2, 'a step that never ran is a usage error')
  t.match(unknown.stderr, /ValidationError/)
})

t.test('batch terminate by query, then batch status', async (t) => {
  const { app, url } = await listening(t)
  const env = { FLOWPORT_URL: url }
  const prefix = `cli-batch-${randomUUID()}-`
  for (let i = 0; i < 2; i++) await start(t, app, 'approval', { label: `c${i}` }, `${prefix}${i}`)
  const query = `WorkflowId STARTS_WITH "${prefix}" AND ExecutionStatus = "Running"`
  await eventually(async () => Number((await app.engine.client.workflowService.countWorkflowExecutions({ namespace: app.config.TEMPORAL_NAMESPACE, query })).count), (c) => c === 2)

  const res = await flowport(['batch', 'terminate', '--query', query, '--reason', 'cli test', '--json'], { env })
  t.equal(res.code, 0, res.stderr)
  const { batchId, matched } = JSON.parse(res.stdout)
  t.equal(matched, 2)
  const done = await eventually(async () => JSON.parse((await flowport(['batch', 'status', batchId, '--json'], { env })).stdout), (b) => b.state !== 'running', 120)
  t.match(done, { action: 'terminate', state: 'completed', completed: 2 })
  const plain = await flowport(['batch', 'status', batchId], { env })
  t.match(plain.stderr, /completed, 2 of 2 done/)
  const missing = await flowport(['batch', 'signal', 'approve', '--reason', 'x', '--payload', '{nope'], { env })
  t.equal(missing.code, 2, 'invalid payload JSON is a usage error')
})

/** `n` open `approval` runs under a fresh id prefix, and the visibility query that matches them once the run list shows them. */
async function openRuns (t: Test, app: App, n: number) {
  const prefix = `cli-batch-${randomUUID()}-`
  const runs = []
  for (let i = 0; i < n; i++) runs.push(await start(t, app, 'approval', { label: `c${i}` }, `${prefix}${i}`))
  const query = `WorkflowId STARTS_WITH "${prefix}" AND ExecutionStatus = "Running"`
  await shown(app, query, n)
  return { runs, query }
}

/** The run list is eventually consistent: waits until the query matches `n` runs. */
const shown = async (app: App, query: string, n: number) =>
  await eventually(async () => Number((await app.engine.client.workflowService.countWorkflowExecutions({ namespace: app.config.TEMPORAL_NAMESPACE, query })).count), (c) => c === n)

const finished = async (env: Record<string, string>, batchId: string) =>
  await eventually(async () => JSON.parse((await flowport(['batch', 'status', batchId, '--json'], { env })).stdout), (b) => b.state !== 'running', 120)

t.test('batch signal, reset, stop and cancel', async (t) => {
  const { app, url } = await listening(t)
  const env = { FLOWPORT_URL: url }

  const approvals = await openRuns(t, app, 2)
  const signal = await flowport(['batch', 'signal', 'approve', '--query', approvals.query, '--reason', 'approve them', '--payload', '{"by":"cli"}'], { env })
  t.equal(signal.code, 0, signal.stderr)
  const signalled = /^Batch (\S+): signal on 2 matching run\(s\)/m.exec(signal.stderr)
  t.ok(signalled, 'the readable answer names the batch and what it matched')
  t.match(await finished(env, signalled![1]!), { action: 'signal', state: 'completed', completed: 2 })
  for (const run of approvals.runs) t.match(await app.engine.client.workflow.getHandle(run.workflowId, run.runId).result(), { approvedBy: 'cli' })

  const { runs, query } = await openRuns(t, app, 2)
  const reset = await flowport(['batch', 'reset', '--query', query, '--from', 'start', '--reason', 'start over', '--json'], { env })
  t.equal(reset.code, 0, reset.stderr)
  const resetBatch = JSON.parse(reset.stdout)
  t.equal(resetBatch.matched, 2)
  t.match(await finished(env, resetBatch.batchId), { action: 'reset', state: 'completed', completed: 2 })
  const newRuns = []
  for (const run of runs) {
    t.equal(await waitClosed(app, run.workflowId, run.runId), 'TERMINATED', 'the engine closed the old run')
    const { workflowExtendedInfo } = await app.engine.client.workflowService.describeWorkflowExecution({ namespace: app.config.TEMPORAL_NAMESPACE, execution: run })
    t.ok(workflowExtendedInfo?.resetRunId, 'and names the new one')
    newRuns.push({ workflowId: run.workflowId, runId: workflowExtendedInfo!.resetRunId! })
  }

  // The reset's new runs are open under the same ids: stop them (a graceful cancellation; their cleanup runs).
  await shown(app, query, 2)
  const stop = await flowport(['batch', 'stop', '--query', query, '--reason', 'stop them', '--json'], { env })
  t.equal(stop.code, 0, stop.stderr)
  const stopBatch = JSON.parse(stop.stdout)
  t.equal(stopBatch.matched, 2)
  t.match(await finished(env, stopBatch.batchId), { action: 'stop', state: 'completed', completed: 2 })
  // The SDK's spelling of the engine's status.
  for (const run of newRuns) t.equal(await waitClosed(app, run.workflowId, run.runId), 'CANCELLED')

  const cancel = await flowport(['batch', 'cancel', stopBatch.batchId], { env })
  t.equal(cancel.code, 0, cancel.stderr)
  t.match(cancel.stderr, /\(stop\): completed, 2 of 2 done/, 'cancelling a finished batch says where it stands')
  const unknown = await flowport(['batch', 'cancel', randomUUID()], { env })
  t.equal(unknown.code, 2, 'an unknown batch is a usage error')
  t.match(unknown.stderr, /BatchNotFoundError/)
})
