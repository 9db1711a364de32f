/**
 * A wait for a run's close (`/workflow/run`, `Prefer: wait`) that reaches its deadline ends as
 * "still open", however little time was left for its last long poll: the engine answers a call
 * due in a few milliseconds with DEADLINE_EXCEEDED or, now and then, CANCELLED, and neither may
 * become a 500 (plugins/app/engine/runs/history.ts, `waitForCloseEvent`).
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { timedOut } from '../plugins/app/engine/runs/history.js'
import { build } from './helpers/app.js'

t.test('waits with 0 to 5 ms or up to 120 ms left all end as timed out, never as an error', async (t) => {
  const app = await build(t)
  // A run no worker serves stays open.
  const handle = await app.engine.client.workflow.start('nobody', { taskQueue: `no-worker-${randomUUID()}`, workflowId: `wait-deadline-${randomUUID()}`, args: [] })
  t.teardown(() => handle.terminate('test over'))
  const run = { workflowId: handle.workflowId, runId: handle.firstExecutionRunId }
  const outcomes: Record<string, number> = {}
  const n = 240
  for (let i = 0; i < n; i++) {
    // Mostly the last few milliseconds, where the engine's CANCELLED shows up.
    const left = i % 4 === 3 ? 20 * (i % 7) : i % 6
    const outcome = await app.runs.waitForCloseEvent(run, { deadline: Date.now() + left })
      .then((r) => (r === timedOut ? 'timed out' : 'closed'), (err: Error) => `${err.name}: ${err.message}`)
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
  }
  t.same(outcomes, { 'timed out': n })
})
