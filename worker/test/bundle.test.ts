/**
 * What reaches the workflow sandbox: workflow code and the SDK's pure modules, never a step
 * implementation or a Node built-in. Bundling needs no engine.
 */
import t from 'tap'
import { buildWorkflowBundle } from '../src/index.js'
import { DefinitionError } from '../src/runtime/definition-error.js'
import { fixture } from './helpers/fixtures.js'
import { recordingLogger } from './helpers/logger.js'

t.test('the bundle holds workflow code and no step implementation', async (t) => {
  const { bundle, activityTypes, catalog } = await buildWorkflowBundle({
    workflowsDir: fixture('bundle-check'),
    packagesFrom: fixture('../../..'), // the repository root: the examples package comes along
    logger: recordingLogger()
  })
  t.ok(bundle.code.includes('WORKFLOW_MARKER_b81c'), 'the workflow module is in')
  t.notOk(bundle.code.includes('STEP_IMPLEMENTATION_MARKER_7f3a'), 'its step module is not')
  t.notOk(/(?:hello|flaky|explode|approval|sleepy|scored)\/(?:steps|evaluators)\.ts/.test(bundle.code), 'no example step or evaluator module either')
  t.notOk(/require\("(?:node:)?fs"\)/.test(bundle.code), 'no Node built-in')
  t.ok(activityTypes.includes('marked#readMarker') && activityTypes.includes('hello#greet'))
  t.ok(catalog.workflows.some((w) => w.name === 'marked'))
})

t.test('a workflow that imports its steps as values is refused, naming both files', async (t) => {
  const err = await buildWorkflowBundle({ workflowsDir: fixture('value-import'), packagesFrom: t.testdir({}), logger: recordingLogger() })
    .catch((e: unknown) => e)
  t.ok(err instanceof DefinitionError)
  t.match((err as Error).message, `${fixture('value-import/workflow.ts')} imports the step module ${fixture('value-import/steps.ts')} as a value`)
  t.match((err as Error).message, 'import type')
})

t.test('a workflow that imports a Node built-in is refused, naming the file', async (t) => {
  const err = await buildWorkflowBundle({ workflowsDir: fixture('node-builtin'), packagesFrom: t.testdir({}), logger: recordingLogger() })
    .catch((e: unknown) => e)
  t.ok(err instanceof DefinitionError)
  t.match((err as Error).message, `${fixture('node-builtin/workflow.ts')} imports the Node built-in 'fs'`)
})

t.test('the generated entry bundles whatever "type" a package.json above the temp dir declares', async (t) => {
  const before = process.env.TMPDIR
  t.teardown(() => { if (before === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = before })
  for (const type of ['module', 'commonjs']) {
    // The entry's temp dir is made under TMPDIR: here, inside a package of that type.
    process.env.TMPDIR = t.testdir({ 'package.json': JSON.stringify({ name: `above-${type}`, type }) })
    const { bundle } = await buildWorkflowBundle({ workflowsDir: fixture('bundle-check'), packagesFrom: t.testdir({}), logger: recordingLogger() })
    t.ok(bundle.code.includes('WORKFLOW_MARKER_b81c'), `bundled under "type": "${type}"`)
  }
})
