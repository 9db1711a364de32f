/**
 * `flowport reset` and `flowport batch …` against a real API and engine.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { flowport, listening } from './helpers/flowport-cli.js'
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
  await eventually(async () => Number((await app.temporal.workflowService.countWorkflowExecutions({ namespace: app.config.TEMPORAL_NAMESPACE, query })).count), (c) => c === 2)

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
