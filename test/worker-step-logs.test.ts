/**
 * The worker's step log lines (worker/src/runtime/step-logs.ts), read from the output of a worker
 * process of the test's own after real runs through the API: JSON with NODE_ENV=production,
 * readable lines otherwise, and none below LOG_LEVEL; the SDK's own lines (worker/src/runtime/telemetry.ts) alike.
 */
import t, { type Test } from 'tap'
import { resolve } from 'node:path'
import { build, traceEnv } from './helpers/app.js'
import { eventually, newId } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'

/** A worker of its own catalog with `env`, and an API app routed to that catalog. */
async function stack (t: Test, env: Record<string, string>) {
  const catalog = newId('step-logs')
  const worker = spawnWorker(t, { ...traceEnv(), SERVICE_CATALOG_ID: catalog, SERVICE_WORKFLOWS_DIR: resolve('test/fixtures/workflows'), ...env }, process.cwd())
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  // Its catalog is published once it polls (with LOG_LEVEL=warn it says nothing about it).
  const published = await eventually(async () => (await app.inject({ method: 'GET', url: `/workflow/catalog/${catalog}` })).statusCode, (status) => status === 200, 480)
  t.equal(published, 200, 'the worker polls')
  const run = async (workflowName: string, input: unknown) => {
    const res = await app.inject({ method: 'POST', url: '/workflow/run', payload: { workflowName, input } })
    t.equal(res.statusCode, 200, `${workflowName} ran`)
    return res.json<{ workflowId: string, runId: string, status: string }>()
  }
  return { worker, run }
}

t.test('production, LOG_LEVEL=debug: one JSON line per step start and end, with the run\'s ids, the attempt and the outcome', async (t) => {
  const { worker, run } = await stack(t, { NODE_ENV: 'production', LOG_LEVEL: 'debug' })
  const flaky = await run('flaky', { failures: 2 })
  t.equal(flaky.status, 'completed')
  await worker.waitFor('"outcome":"completed"')
  const lines = worker.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
  t.ok(lines.some((l) => typeof l.msg === 'string' && l.msg.startsWith('Worker polling catalog')), 'the worker\'s other lines are JSON too')
  t.ok(lines.some((l) => l.msg === 'Worker state changed' && l.sdkComponent === 'worker' && l.state === 'RUNNING' && l.level === 30), 'the SDK\'s own lines are JSON too, at their level')
  t.notMatch(worker.output(), /\[INFO\]/, 'no line in the SDK\'s default format')
  // The step lines; the SDK's own lines about the attempts (its failure warnings) carry the same ids.
  const steps = lines.filter((l) => l.activityType === 'flaky#unstable' && l.workflowId === flaky.workflowId && String(l.msg).startsWith('Step '))
  const ids = { workflowId: flaky.workflowId, runId: flaky.runId, activityType: 'flaky#unstable' }
  // Starts and completions are debug lines (20), failures info lines (30).
  t.match(steps, [
    { ...ids, level: 20, attempt: 1, msg: 'Step flaky#unstable started (attempt 1)' },
    { ...ids, level: 30, attempt: 1, outcome: 'failed', error: String },
    { ...ids, level: 20, attempt: 2, msg: 'Step flaky#unstable started (attempt 2)' },
    { ...ids, level: 30, attempt: 2, outcome: 'failed' },
    { ...ids, level: 20, attempt: 3 },
    { ...ids, level: 20, attempt: 3, outcome: 'completed' }
  ])
  t.equal(steps.length, 6, 'three attempts, a start and an end line each')
  for (const end of steps.filter((l) => l.outcome !== undefined)) {
    t.type(end.durationMs, 'number')
    t.type(end.time, 'number')
  }
  t.equal(steps[5].error, undefined, 'a completed attempt has no error')
})

t.test('at the default level (info) a step writes only its failures: steps of every run are the hot path', async (t) => {
  const { worker, run } = await stack(t, { NODE_ENV: 'production' })
  const hello = await run('hello', { name: 'quiet' })
  t.equal(hello.status, 'completed')
  const flaky = await run('flaky', { failures: 2 })
  t.equal(flaky.status, 'completed')
  // The output is in order: once the second failure is read, every line written before it is too.
  await worker.waitFor('Step flaky#unstable failed (attempt 2,')
  const steps = worker.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => (l.runId === flaky.runId || l.runId === hello.runId) && String(l.msg).startsWith('Step '))
  t.match(steps, [
    { level: 30, activityType: 'flaky#unstable', attempt: 1, outcome: 'failed', error: String },
    { level: 30, activityType: 'flaky#unstable', attempt: 2, outcome: 'failed', error: String }
  ], 'the failed attempts\' end lines alone')
  t.equal(steps.length, 2, 'no start line, and none for hello\'s completed step')
})

t.test('elsewhere: readable lines; LOG_LEVEL=warn drops them', async (t) => {
  const { worker, run } = await stack(t, { NODE_ENV: 'development', LOG_LEVEL: 'debug' })
  const hello = await run('hello', { name: 'logs' })
  await worker.waitFor('Step hello#greet completed')
  const lines = worker.output().split('\n').filter((l) => l.includes(hello.runId))
  // The lines go with the failure: once in CI four lines named the run, and a bare count could not say which.
  t.equal(lines.length, 2, 'a start and an end line', { lines })
  t.match(lines[0], /^\[flowport\] debug: Step hello#greet started \(attempt 1\) \{/)
  t.match(lines[1], /^\[flowport\] debug: Step hello#greet completed \(attempt 1, [\d.]+ ms\) \{/)
  t.match(JSON.parse(lines[1].slice(lines[1].indexOf('{'))), { workflowId: hello.workflowId, runId: hello.runId, activityType: 'hello#greet', attempt: 1, outcome: 'completed' })

  const quiet = await stack(t, { NODE_ENV: 'development', LOG_LEVEL: 'warn' })
  const unheard = await quiet.run('flaky', { failures: 1 })
  t.equal(unheard.status, 'completed')
  t.notOk(quiet.worker.output().includes('Step flaky#unstable'), 'no step line below LOG_LEVEL, not even a failure\'s')
  t.notOk(quiet.worker.output().includes('Worker state changed'), 'nor the SDK\'s info lines')
  t.match(worker.output(), /^\[flowport\] Worker state changed \{.*"state":"RUNNING"/m, 'at info and below, the SDK\'s lines are readable lines like the rest')
})
