/**
 * Error hooks (package.json `flowport.onError`) against the real engine: failed step attempts and
 * failed runs reach the hook of the package that defines the workflow (not another package's, and
 * nothing of Flowport's own eval runs), the worker's own errors (a trace it cannot write) reach
 * every hook, each with an event id, the time, an AbortSignal and the run's ids; a hook that
 * throws and one that never settles are logged with the run's ids and change nothing.
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import type { Client } from '@temporalio/client'
import { EVAL_WORKFLOW_TYPE, evalWorkflowIdPrefix, type EvalReport } from '@flowport/core/eval'
import { startWorker, type ErrorEvent } from '../src/index.js'
import { connectClient, endCatalog, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, uniqueCatalog } from './helpers/engine.js'
import { fixture } from './helpers/fixtures.js'
import { recordingLogger } from './helpers/logger.js'

const catalogId = uniqueCatalog('hooks')
const logger = recordingLogger()
let client: Client
let traceDir: string

/** What a hook received, and which package's hook it was. */
type Received = ErrorEvent & { to: string, aborted?: boolean, hasSignal?: boolean }
const received = (): Received[] => (globalThis as { hookEvents?: Received[] }).hookEvents ?? []
/** The events the recording package's hook received. */
const events = (): Received[] => received().filter((e) => e.to === 'hooked-a')

/** Hooks run off the run's path: wait until the condition holds (the file's timeout bounds it). */
async function until (t: Test, what: string, check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 50))
  t.pass(what)
}

const EXAMPLES = fixture('../../../examples/src')
const JUDGED = fixture('../../../test/fixtures/workflows/judged/workflow.ts')

/**
 * Two workflow packages, each with its own hook: hooked-a (flaky, hello, judged) records what it
 * gets; hooked-b (explode) records, then throws on a workflow error and waits for its signal on a
 * step error (the worker gives up on it after the timeout and aborts the signal).
 */
const hookedPackage = (name: string, workflows: Record<string, string>, hook: string) => ({
  'package.json': JSON.stringify({ name: `@fixture/${name}`, version: '1.0.0', type: 'module', private: true, flowport: { workflows: true, onError: './on-error' }, exports: { '.': './index.ts', './on-error': './on-error.js' } }),
  // Relative re-exports (discovery follows only those), from where the package will be: <testdir>/packages/@fixture/<name>.
  'index.ts': Object.entries(workflows).map(([exported, file]) => `export { ${exported} } from '${relative(join(t.testdirName, 'packages', '@fixture', name), file)}'`).join('\n'),
  'on-error.js': `const seen = (globalThis.hookEvents ??= [])\nexport async function onError (event, { signal }) {\n  seen.push({ ...event, to: '${name}', hasSignal: signal instanceof AbortSignal })\n${hook}\n}\n`
})

t.before(async () => {
  client = await connectClient(t)
  // The packages live outside node_modules and are linked in, as a workspace's are: the TypeScript
  // loader of the tests leaves files under node_modules alone.
  const project = t.testdir({
    node_modules: { '@fixture': {} },
    packages: {
      '@fixture': {
        'hooked-a': hookedPackage('hooked-a', { flaky: `${EXAMPLES}/flaky/workflow.ts`, hello: `${EXAMPLES}/hello/workflow.ts`, judged: JUDGED }, ''),
        'hooked-b': hookedPackage('hooked-b', { explode: `${EXAMPLES}/explode/workflow.ts` }, [
          "  if (event.source === 'workflow') throw new Error('the hook itself failed')",
          "  if (event.source === 'step') await new Promise((resolve) => { signal.addEventListener('abort', resolve) })",
          "  seen.push({ ...event, to: 'hooked-b', aborted: signal.aborted })"
        ].join('\n'))
      }
    },
    traces: {}
  })
  for (const name of ['hooked-a', 'hooked-b']) symlinkSync(join(project, 'packages', '@fixture', name), join(project, 'node_modules', '@fixture', name))
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

t.test('each failed step attempt reaches its package\'s hook with an event id, the time, a signal, the ids and the attempt; the run goes on', async (t) => {
  const { handle, outcome } = await run('flaky', { failures: 2 })
  t.same(outcome, { output: { attempts: 3 } }, 'the hooks did not change the run')
  const mine = () => events().filter((e) => e.source === 'step' && e.workflowId === handle.workflowId)
  await until(t, 'both failed attempts reported', () => mine().length === 2)
  t.same(mine().map((e) => e.source === 'step' && [e.workflowName, e.step, e.activityType, e.attempt, e.runId, e.error.name, e.error.message]), [
    ['flaky', 'unstable', 'flaky#unstable', 1, handle.firstExecutionRunId, 'TransientError', 'Attempt 1 of 3 fails on purpose'],
    ['flaky', 'unstable', 'flaky#unstable', 2, handle.firstExecutionRunId, 'TransientError', 'Attempt 2 of 3 fails on purpose']
  ])
  for (const e of mine()) {
    t.match(e.eventId, /^[0-9a-f-]{36}$/)
    t.ok(!Number.isNaN(Date.parse(e.time)) && e.time.endsWith('Z'), 'the time, ISO 8601')
    t.equal(e.hasSignal, true, 'an AbortSignal beside the event')
  }
  t.not(mine()[0]!.eventId, mine()[1]!.eventId)
  t.notOk(events().some((e) => e.source === 'workflow' && e.workflowId === handle.workflowId), 'a run that completed is no workflow error')
  t.notOk(received().some((e) => e.to === 'hooked-b' && e.workflowId === handle.workflowId), 'the other package\'s hook got none of them')
})

t.test('a failed run reaches its package\'s hook once; a hook that throws is logged with the run\'s ids', async (t) => {
  const { handle, outcome } = await run('explode', { message: 'kaboom' })
  t.ok('err' in outcome, 'the run failed')
  const ofRun = (e: Received) => e.workflowId === handle.workflowId
  await until(t, 'the failed run reported to hooked-b', () => received().some((e) => e.to === 'hooked-b' && e.source === 'workflow' && ofRun(e)))
  t.match(received().filter((e) => e.to === 'hooked-b' && e.source === 'workflow' && ofRun(e)), [
    { source: 'workflow', workflowName: 'explode', runId: handle.firstExecutionRunId, error: { name: 'ExplosionError', message: 'kaboom' } }
  ])
  const line = `onError hook of @fixture/hooked-b threw on a workflow error (run ${handle.workflowId}/${handle.firstExecutionRunId}): Error: the hook itself failed`
  await until(t, 'the throwing hook logged with the run\'s ids', () => logger.errors.includes(line))
  await until(t, 'its step failure too', () => received().some((e) => e.to === 'hooked-b' && e.source === 'step' && ofRun(e) && e.step === 'detonate'))
  t.notOk(events().some(ofRun), 'the other package\'s hook got none of them')
})

t.test('a hook that hangs is given up on after the timeout: logged with the run\'s ids, its signal aborted', async (t) => {
  const { handle } = await run('explode', { message: 'again' })
  await until(t, 'the hanging hook logged', () => logger.warnings.some((m) => m.startsWith(`onError hook of @fixture/hooked-b did not finish within 200 ms (step error (run ${handle.workflowId}/${handle.firstExecutionRunId}))`)))
  await until(t, 'its signal aborted, so it let go', () => received().some((e) => e.to === 'hooked-b' && e.workflowId === handle.workflowId && e.aborted === true))
})

t.test('a workflow error under an alias is named by its canonical name', async (t) => {
  const { handle } = await run('hi', { name: 42 })
  await until(t, 'the invalid input reported', () => events().some((e) => e.source === 'workflow' && e.workflowId === handle.workflowId))
  t.match(events().find((e) => e.source === 'workflow' && e.workflowId === handle.workflowId), { workflowName: 'hello', error: { name: 'ValidationError' } })
})

t.test('an eval run is Flowport\'s own: its evaluator failures reach no hook; its case runs are the package\'s', async (t) => {
  const evalId = `${evalWorkflowIdPrefix('judged')}${randomUUID()}`
  const report = await client.workflow.execute(EVAL_WORKFLOW_TYPE, { taskQueue: catalogId, workflowId: evalId, args: [{ workflow: 'judged', cached: false }] }) as EvalReport
  t.match(report.cases.find((c) => c.name === 'evaluator_breaks')?.results, [{ evaluator: 'fragile', verdict: 'fail' }], 'an evaluator failed in the eval run')
  await until(t, 'the failed case run (a run of judged) reported', () => events().some((e) => e.source === 'workflow' && e.workflowId === `${evalId}:run_fails`))
  t.notOk(received().some((e) => e.workflowId === evalId), 'nothing of the eval run itself, in either hook')
})

t.test("the worker's own error (a trace it cannot write) reaches the hooks with the run's ids", async (t) => {
  // The trace directory turns into a file after the worker checked it at start (a disk that fails
  // later; one unwritable at start is left out with a warning): every trace write fails from now on.
  rmSync(traceDir, { recursive: true, force: true })
  writeFileSync(traceDir, 'x')
  const { handle } = await run('hello', { name: 'Ada' })
  await until(t, 'the failed trace write reported', () => events().some((e) => e.source === 'runtime' && e.runId === handle.firstExecutionRunId))
  const event = events().find((e) => e.source === 'runtime' && e.runId === handle.firstExecutionRunId)
  t.match(event, { workflowId: handle.workflowId, message: /^Trace of .* the local copy could not be written/, error: { name: /Error/ } })
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
