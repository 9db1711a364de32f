/**
 * @flowport/worker/testing on Temporal's time-skipping test server (`npm test` gives its binary):
 * a workflow whose workflow task fails is not waited out until the run's timeout (the engine
 * retries such a task forever); the test gets the worker's error at once, and the run is ended.
 * A project's definitions are checked with no server at all (checkDefinitions).
 */
import t from 'tap'
import { DefaultLogger, Runtime } from '@temporalio/worker'
import { checkDefinitions, createWorkflowTester } from '../src/testing/index.js'
import { fixture } from './helpers/fixtures.js'
import { recordingLogger } from './helpers/logger.js'

Runtime.install({ logger: new DefaultLogger('ERROR') })

t.test('a failing workflow task fails the test with the worker\'s error, and the run is ended', async (t) => {
  const tester = await createWorkflowTester({ workflowsDir: fixture('task-failure'), packagesFrom: t.testdir({}), logger: recordingLogger() })
  t.teardown(async () => { await tester.close() })
  const err = await tester.run('buggy', {}, { workflowId: 'buggy-test', timeout: '1h' }).then(() => null, (e: unknown) => e as Error)
  t.ok(err instanceof Error, 'the run is refused, not waited out')
  t.match(err?.message, /^The workflow task of buggy \(run buggy-test\) failed, and the engine would retry it until the run times out: process is not defined/)
  t.match(err?.message, /workflow\.ts/, 'with the stack, naming the workflow file')
  const described = await tester.environment.client.workflow.getHandle('buggy-test').describe()
  t.equal(described.status.name, 'TERMINATED', 'the run does not keep its slot on the test server')
})

t.test('checkDefinitions loads a project\'s definitions with no server, and names what is wrong', async (t) => {
  const summary = await checkDefinitions({ workflowsDir: fixture('task-failure'), packagesFrom: t.testdir({}), logger: recordingLogger() })
  t.same(summary.workflows.map((w) => w.name), ['buggy'])
  const err = await checkDefinitions({ workflowsDir: fixture('bad-steps'), packagesFrom: t.testdir({}), logger: recordingLogger() }).catch((e: unknown) => e as Error)
  t.match(err, { name: 'DefinitionError', message: /bad-steps\/steps\.ts: export "format" is not a step/ })
})
