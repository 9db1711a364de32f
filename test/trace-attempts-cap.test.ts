/**
 * Stored traces stay bounded (issue 49 item 5): a step that retries for days keeps the records of
 * its first 10 and last 10 failed attempts, not one per attempt, and its trace lists those with
 * the count of the ones in between. Real files (the local trace directory) and a recorded history
 * of the `flaky` example (examples/test/histories/).
 */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js'
import protoRoot from '@temporalio/proto'
import { assembleTrace, ATTEMPTS_KEPT, TraceStore, runKey, type AttemptRecord } from '@flowport/core/trace'

const { History } = protoRoot.temporal.api.history.v1
// Through the wire format, as the engine client hands events over (times as Longs, not numbers).
const history = History.decode(History.encode(historyFromJSON(JSON.parse(readFileSync(new URL('../examples/test/histories/flaky.json', import.meta.url), 'utf8')))).finish())
const run = { workflowId: 'flaky-attempts', runId: '0198a9f2-6c1e-7f3a-9d2b-5e8c4a1b7d60' }

const record = (attempt: number): AttemptRecord => ({
  activityId: '1',
  attempt,
  status: 'failed',
  startTime: new Date(Date.UTC(2026, 10, 21, 12, 0, attempt)).toISOString(),
  endTime: new Date(Date.UTC(2026, 10, 21, 12, 0, attempt, 500)).toISOString(),
  error: { name: 'Error', message: `attempt ${attempt} fails`, retryable: true, cause: null }
})

t.test('a step failing 35 times keeps 20 attempt records; its trace has the first and last 10 and counts the 15 between', async (t) => {
  const dir = t.testdir({})
  const store = new TraceStore({ dir, s3: null, maxValueBytes: 65_536, sweepMs: 1000, lookbackMs: 60_000, localRetentionMs: 0, writeQueueMax: 1000 })
  t.teardown(() => store.close())
  for (let attempt = 1; attempt <= 35; attempt++) await store.writeAttempt(run.workflowId, run.runId, record(attempt))

  const files = readdirSync(join(dir, `${runKey(run.workflowId, run.runId)}.attempts`))
  t.equal(files.length, 2 * ATTEMPTS_KEPT, 'the first 10 and the last 10 are kept on disk')
  const attempts = await store.readAttempts(run.workflowId, run.runId)
  const kept = attempts.map((a) => a.attempt).sort((a, b) => a - b)
  const expected = [...Array.from({ length: 10 }, (_, i) => i + 1), ...Array.from({ length: 10 }, (_, i) => i + 26)]
  t.same(kept, expected, 'attempts 1–10 and 26–35 are read back')

  const trace = assembleTrace({ run, events: history.events, attempts, isEvaluator: () => false, maxValueBytes: 65_536 })
  const node = trace.nodes.find((n) => n.kind === 'step')!
  t.same(node.attempts.map((a) => a.attempt), expected, 'the trace lists the same attempts, in order')
  t.equal(node.attemptsOmitted, 15, 'and counts the ones left out')
  t.match(node.attempts.at(-1), { attempt: 35, status: 'failed', error: { message: 'attempt 35 fails' } })
})

t.test('a step with few attempts lists them all and omits none', async (t) => {
  const attempts = [record(1)]
  const trace = assembleTrace({ run, events: history.events, attempts, isEvaluator: () => false, maxValueBytes: 65_536 })
  const node = trace.nodes.find((n) => n.kind === 'step')!
  t.same(node.attempts.map((a) => [a.attempt, a.status]), [[1, 'failed'], [2, 'completed']])
  t.notOk('attemptsOmitted' in node, 'no count when nothing is left out')
})
