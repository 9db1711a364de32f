/**
 * The worker's Prometheus endpoint (SERVICE_WORKER_METRICS_PORT) after real runs of hello, flaky
 * and explode through the API: per-step executions, failures, retries and durations by activity
 * type, workflow completions by type and status, and the Temporal SDK's own worker metrics.
 */
import t from 'tap'
import { resolve } from 'node:path'
import { request } from 'undici'
import { build, traceEnv } from './helpers/app.js'
import { freePort } from './helpers/processes.js'
import { parseMetrics, total } from './helpers/prometheus.js'
import { newId } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'

t.test('per-step and per-workflow counts match the runs; the SDK worker metrics are there', async (t) => {
  const catalog = newId('metrics-worker')
  const port = await freePort()
  const worker = spawnWorker(t, {
    ...traceEnv(),
    SERVICE_CATALOG_ID: catalog,
    SERVICE_WORKFLOWS_DIR: resolve('test/fixtures/workflows'),
    SERVICE_WORKER_METRICS_PORT: String(port)
  }, process.cwd())
  await worker.waitFor(`Worker polling catalog ${catalog}`)
  t.match(worker.output(), `Worker metrics on port ${port}: /metrics`)

  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  const run = async (workflowName: string, input: unknown) => {
    const res = await app.inject({ method: 'POST', url: '/workflow/run', payload: { workflowName, input } })
    t.equal(res.statusCode, 200, `${workflowName} ran`)
    return res.json<{ status: string }>().status
  }
  t.equal(await run('hello', { name: 'a' }), 'completed')
  t.equal(await run('hello', { name: 'b' }), 'completed')
  t.equal(await run('flaky', { failures: 2 }), 'completed')
  t.equal(await run('explode', { message: 'boom' }), 'failed')

  const res = await request(`http://127.0.0.1:${port}/metrics`)
  t.equal(res.statusCode, 200)
  const text = await res.body.text()
  const samples = parseMetrics(text)
  const steps = (activityType: string, outcome: string) => total(samples, 'flowport_step_executions_total', { activity_type: activityType, outcome, task_queue: catalog })
  t.equal(steps('hello#greet', 'completed'), 2)
  t.equal(steps('hello#greet', 'failed'), 0)
  t.equal(steps('flaky#unstable', 'failed'), 2, 'two failed attempts')
  t.equal(steps('flaky#unstable', 'completed'), 1, 'then one that succeeded')
  t.equal(total(samples, 'flowport_step_retries_total', { activity_type: 'flaky#unstable' }), 2, 'attempts 2 and 3 are retries')
  t.equal(steps('explode#detonate', 'failed'), 1, 'a non-retryable failure: one attempt')
  t.equal(total(samples, 'flowport_step_retries_total', { activity_type: 'explode#detonate' }), 0)
  t.equal(total(samples, 'flowport_step_duration_count', { activity_type: 'flaky#unstable' }), 3, 'one duration per attempt')

  t.equal(total(samples, 'temporal_workflow_completed_total', { workflow_type: 'hello' }), 2, 'the SDK counts completions per workflow type')
  t.equal(total(samples, 'temporal_workflow_completed_total', { workflow_type: 'flaky' }), 1)
  t.equal(total(samples, 'temporal_workflow_failed_total', { workflow_type: 'explode' }), 1, 'and failures')
  t.ok(samples.some((s) => s.name === 'temporal_worker_task_slots_available'), 'task slots')
  t.ok(samples.some((s) => s.name.startsWith('temporal_workflow_task_schedule_to_start_latency')), 'schedule-to-start latency')
  t.ok(samples.some((s) => s.name === 'temporal_sticky_cache_size'), 'sticky cache')
  t.equal(total(samples, 'temporal_workflow_endtoend_latency_count', { workflow_type: 'hello' }), 2, 'end-to-end latency per workflow type')
  t.equal(total(samples, 'temporal_activity_execution_latency_count', { activity_type: 'hello#greet' }), 2, 'the SDK\'s own step latency')
  t.ok(samples.some((s) => s.name.startsWith('temporal_long_request_latency')), 'poll latency')
  t.ok(samples.some((s) => s.name === 'temporal_num_pollers'), 'pollers')
})
