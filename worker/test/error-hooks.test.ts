/**
 * Error hooks (package.json `flowport.onError`) against the real engine: failed step attempts,
 * failed runs and the worker's own errors (a trace it cannot write) reach every package's hook
 * with the run's ids; a hook that throws and one that never settles are logged and change nothing.
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Client } from '@temporalio/client'
import { startWorker, type ErrorEvent } from '../src/index.js'
import { connectClient, endCatalog, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, uniqueCatalog } from './helpers/engine.js'
import { fixture } from './helpers/fixtures.js'
import { recordingLogger } from './helpers/logger.js'

const catalogId = uniqueCatalog('hooks')
const logger = recordingLogger()
let client: Client
let traceDir: string

const events = (): ErrorEvent[] => (globalThis as { hookEvents?: ErrorEvent[] }).hookEvents ?? []

/** Hooks run off the run's path: wait until the condition holds (the file's timeout bounds it). */
async function until (t: Test, what: string, check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50))
  t.pass(what)
}

t.before(async () => {
  client = await connectClient(t)
  const project = t.testdir({
    node_modules: {
      '@flowport': { examples: t.fixture('symlink', fixture('../../../examples')) },
      '@fixture': {
        'hooks-record': t.fixture('symlink', fixture('packages/hooks-record')),
        'hooks-throw': t.fixture('symlink', fixture('packages/hooks-throw')),
        'hooks-hang': t.fixture('symlink', fixture('packages/hooks-hang'))
      }
    },
    traces: {}
  })
  traceDir = join(project, 'traces')
  const handle = await startWorker({
    address: TEMPORAL_ADDRESS,
    namespace: TEMPORAL_NAMESPACE,
    catalogId,
    packagesFrom: project,
    reuseBundle: true,
    shutdownGraceTime: '1s',
    logger,
    errorHookTimeoutMs: 200,
    trace: { dir: traceDir, s3: null, maxValueBytes: 65_536, sweepMs: 60_000, lookbackMs: 60_000, localRetentionMs: 0, writeQueueMax: 1000 }
  })
  t.teardown(async () => {
    await handle.shutdown()
    await endCatalog(client, catalogId)
  })
})

const run = async (workflow: string, input: unknown) => {
  const handle = await client.workflow.start(workflow, { taskQueue: catalogId, workflowId: `${workflow}-${randomUUID()}`, args: [input] })
  return { handle, outcome: await handle.result().then((output: unknown) => ({ output }), (err: unknown) => ({ err })) }
}

t.test('each failed step attempt reaches the hook with the ids and the attempt; the run goes on', async (t) => {
  const { handle, outcome } = await run('flaky', { failures: 2 })
  t.same(outcome, { output: { attempts: 3 } }, 'the throwing and the hanging hooks did not change the run')
  const mine = () => events().filter((e) => e.source === 'step' && e.workflowId === handle.workflowId)
  await until(t, 'both failed attempts reported', () => mine().length === 2)
  t.same(mine().map((e) => e.source === 'step' && [e.workflowName, e.step, e.activityType, e.attempt, e.runId, e.error.name, e.error.message]), [
    ['flaky', 'unstable', 'flaky#unstable', 1, handle.firstExecutionRunId, 'TransientError', 'Attempt 1 of 3 fails on purpose'],
    ['flaky', 'unstable', 'flaky#unstable', 2, handle.firstExecutionRunId, 'TransientError', 'Attempt 2 of 3 fails on purpose']
  ])
  t.notOk(events().some((e) => e.source === 'workflow' && e.workflowId === handle.workflowId), 'a run that completed is no workflow error')
})

t.test('a failed run reaches the hook once, from the worker side of the sandbox', async (t) => {
  const { handle, outcome } = await run('explode', { message: 'kaboom' })
  t.ok('err' in outcome, 'the run failed')
  const mine = () => events().filter((e) => e.source === 'workflow' && e.workflowId === handle.workflowId)
  await until(t, 'the failed run reported', () => mine().length === 1)
  const [event] = mine()
  t.match(event, { source: 'workflow', workflowName: 'explode', runId: handle.firstExecutionRunId, error: { name: 'ExplosionError', message: 'kaboom' } })
  t.ok(events().some((e) => e.source === 'step' && e.workflowId === handle.workflowId && e.step === 'detonate'), 'its step failure too')
})

t.test('a workflow error under an alias is named by its canonical name', async (t) => {
  const { handle } = await run('hi', { name: 42 })
  await until(t, 'the invalid input reported', () => events().some((e) => e.source === 'workflow' && e.workflowId === handle.workflowId))
  t.match(events().find((e) => e.source === 'workflow' && e.workflowId === handle.workflowId), { workflowName: 'hello', error: { name: 'ValidationError' } })
})

t.test("the worker's own error (a trace it cannot write) reaches the hook with the run's ids", async (t) => {
  // The trace directory turns into a file after the worker checked it at start (a disk that fails
  // later; one unwritable at start is left out with a warning): every trace write fails from now on.
  rmSync(traceDir, { recursive: true, force: true })
  writeFileSync(traceDir, 'x')
  const { handle } = await run('hello', { name: 'Ada' })
  await until(t, 'the failed trace write reported', () => events().some((e) => e.source === 'runtime' && e.runId === handle.firstExecutionRunId))
  const event = events().find((e) => e.source === 'runtime' && e.runId === handle.firstExecutionRunId)
  t.match(event, { workflowId: handle.workflowId, message: /^Trace of .* the local copy could not be written/, error: { name: /Error/ } })
})

t.test('a hook that throws and one that hangs are logged, bounded by the timeout', async (t) => {
  await until(t, 'the throwing hook logged', () => logger.errors.some((m) => /^onError hook of @fixture\/hooks-throw threw on a step error: Error: the hook itself failed/.test(m)))
  await until(t, 'the hanging hook logged', () => logger.warnings.some((m) => /^onError hook of @fixture\/hooks-hang did not finish within 200 ms/.test(m)))
})

t.test('a flag that names no module stops the worker with a message naming the package.json', async (t) => {
  const project = t.testdir({
    node_modules: {
      'bad-hook': { 'package.json': JSON.stringify({ name: 'bad-hook', flowport: { workflows: true, onError: './missing' } }), 'index.js': 'export {}\n' }
    }
  })
  await t.rejects(startWorker({ address: TEMPORAL_ADDRESS, namespace: TEMPORAL_NAMESPACE, catalogId: uniqueCatalog('bad-hook'), packagesFrom: project, logger: recordingLogger() }),
    { name: 'DefinitionError', message: /package\.json: flowport\.onError "\.\/missing" names no module/ })
})
