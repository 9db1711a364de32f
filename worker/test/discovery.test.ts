/**
 * Discovery and definition checks: which packages and exports are registered, what is warned
 * about, and the start errors (each naming the file at fault). No engine needed: all of this
 * happens before the worker connects.
 */
import t from 'tap'
import { startWorker } from '../src/index.js'
import { DefinitionError } from '../src/runtime/definition-error.js'
import { loadProject } from '../src/runtime/project.js'
import { readDatasets } from '../src/runtime/evals/datasets.js'
import { fixture, projectWith } from './helpers/fixtures.js'
import { recordingLogger } from './helpers/logger.js'

const load = async (options: { workflowsDir?: string, packagesFrom?: string }, logger = recordingLogger()) =>
  await loadProject({ catalogId: 'unit', logger, ...options })

t.test('flagged packages are found in node_modules (scoped too); unflagged ones are skipped', async (t) => {
  const packagesFrom = projectWith(t, {
    '@fixture/dup-a': 'dup-a',
    'fixture-unfollowed': 'unfollowed',
    'fixture-no-flag': 'no-flag'
  })
  const { registry, catalog } = await load({ packagesFrom })
  t.same(registry.workflows.map((w) => w.meta.name), ['twin', 'visible'])
  t.same(catalog.workflows.map((w) => w.source), [
    { package: '@fixture/dup-a', version: '1.0.0' },
    { package: 'fixture-unfollowed', version: '0.1.0' }
  ])
})

t.test('exports that need running code are not followed, with a warning naming the file', async (t) => {
  const logger = recordingLogger()
  const packagesFrom = projectWith(t, { 'fixture-unfollowed': 'unfollowed' })
  const { registry } = await load({ packagesFrom }, logger)
  t.same(registry.workflows.map((w) => w.meta.name), ['visible'], 'hidden (namespace re-export) is not registered')
  const assembled = fixture('packages/unfollowed/assembled.js')
  const expected = [
    [fixture('packages/unfollowed/index.js'), /namespace re-export \(export \* as grouped\) is not followed/],
    [assembled, /dynamic import\(\) is not followed/],
    [assembled, /CommonJS require\(\) is not followed/],
    [assembled, /export "all" is assembled at run time and is not followed/],
    [fixture('packages/unfollowed/elsewhere.js'), /re-export from 'some-other-package' is not followed/]
  ] as const
  for (const [file, pattern] of expected) {
    t.ok(logger.warnings.some((w) => w.startsWith(file) && pattern.test(w)), `warned: ${String(pattern)}`)
  }
})

t.test('a workflow name registered twice stops the start, naming both origins', async (t) => {
  const packagesFrom = projectWith(t, { '@fixture/dup-a': 'dup-a' })
  const err = await load({ packagesFrom, workflowsDir: fixture('dup-local') }).catch((e: unknown) => e)
  t.ok(err instanceof DefinitionError)
  t.match((err as Error).message, 'Workflow name "twin" is registered twice')
  t.match((err as Error).message, `${fixture('packages/dup-a/twin.ts')} (package @fixture/dup-a)`)
  t.match((err as Error).message, `${fixture('dup-local/twin.ts')} (local workflows)`)
})

t.test('names differing only by case count as the same name', async (t) => {
  const packagesFrom = projectWith(t, { '@fixture/dup-a': 'dup-a' })
  const err = await load({ packagesFrom, workflowsDir: fixture('dup-case') }).catch((e: unknown) => e)
  t.ok(err instanceof DefinitionError)
  t.match((err as Error).message, 'Workflow name "twin" / "TWIN" (names are compared ignoring case) is registered twice')
})

t.test('a workflow that types its calls with another folder\'s steps is warned about', async (t) => {
  const logger = recordingLogger()
  await load({ workflowsDir: fixture('sdk'), packagesFrom: projectWith(t, { '@fixture/shared-steps': 'shared-steps' }) }, logger)
  const foreign = logger.warnings.filter((w) => w.includes('belongs to another workflow folder'))
  t.equal(foreign.length, 1, 'only the stray workflow (shared steps from a package entry are fine)')
  t.match(foreign[0], `${fixture('sdk/stray/workflow.ts')}: imports the step types of ${fixture('sdk/checks/steps.ts')}`)
})

t.test('startWorker refuses invalid definitions before connecting', async (t) => {
  const cases = [
    ['bad-name', /bad-name\/workflow\.ts: workflow name "bad-name" is invalid: names must match/],
    ['bad-schema', /bad-schema\/workflow\.ts: workflow dated: inputSchema \/properties\/when is Type\.Date\(\), which JSON Schema cannot describe/],
    ['bad-steps', /bad-steps\/steps\.ts: export "format" is not a step/],
    ['mismatch', /mismatch\/steps\.ts: export "greet" defines the step "greeting"/],
    ['local-heartbeat', /local-heartbeat\/steps\.ts: step pulse: a local step cannot have a heartbeatTimeout/]
  ] as const
  for (const [dir, pattern] of cases) {
    const err = await startWorker({
      address: '127.0.0.1:1', // never reached: the definitions are checked first
      namespace: 'default',
      catalogId: 'unit',
      workflowsDir: fixture(dir),
      packagesFrom: t.testdir({}),
      logger: recordingLogger()
    }).catch((e: unknown) => e)
    t.ok(err instanceof DefinitionError, `${dir}: DefinitionError`)
    t.match((err as Error).message, pattern, dir)
  }
})

t.test('two shared steps with one name: the later registration wins, with a warning naming both', async (t) => {
  const logger = recordingLogger()
  const packagesFrom = projectWith(t, { '@fixture/shared-steps': 'shared-steps', 'fixture-shared-override': 'shared-override' })
  const { registry } = await load({ packagesFrom }, logger)
  t.equal(registry.shared.get('shout')?.file, fixture('packages/shared-override/shout.ts'))
  const warning = logger.warnings.find((w) => w.startsWith('Shared step/evaluator "shout"'))
  t.match(warning, `of ${fixture('packages/shared-override/shout.ts')} (package fixture-shared-override) replaces the one of ${fixture('packages/shared-steps/shout.ts')} (package @fixture/shared-steps)`)
})

t.test('the examples package is found from the repository root and its steps are attached by folder', async (t) => {
  const { registry, manifest } = await load({ packagesFrom: fixture('../../..') })
  const names = registry.workflows.filter((w) => w.origin.package === '@flowport/examples').map((w) => w.meta.name)
  t.same(names, ['approval', 'explode', 'flaky', 'hello', 'parent', 'pipeline', 'relay', 'scored', 'sleepy', 'triage'])
  t.same(manifest.workflows.hi, 'hello', 'aliases map to the canonical name')
  t.same(Object.keys(manifest.activities).filter((a) => a.startsWith('scored#')).sort(), ['scored#lengthScore', 'scored#summarize'])
  t.same(manifest.activities['flaky#unstable']?.retry, { initialInterval: '100ms', backoffCoefficient: 1, maximumInterval: '1m', maximumAttempts: 10 })
  t.equal(manifest.activities['pipeline#localStage']?.local, true, 'a local step keeps its option in the manifest')
})

t.test('an eval beside a workflow is registered with its datasets; one naming an evaluator the workflow lacks stops the start', async (t) => {
  const { registry } = await load({ packagesFrom: fixture('../../..') })
  const triage = registry.workflows.find((w) => w.meta.name === 'triage')
  t.same(triage?.eval?.definition.evaluators.map((e) => [e.evaluator, e.criticality, e.interpret.type]),
    [['categoryMatches', 'required', 'boolean'], ['replyBrevity', 'required', 'number'], ['urgencyLevel', 'informational', 'string']])
  t.equal(registry.workflows.find((w) => w.meta.name === 'hello')?.eval, undefined, 'no eval module, no eval')
  const cases = readDatasets(fixture('../../../examples/src/triage'))
  t.same(cases.map((c) => c.name), ['crash_report', 'feature_request', 'refund_request'])
  t.match(cases[0], { input: { text: String }, groundTruth: { category: 'bug' }, lastOutput: { date: '2026-11-27T12:00:00.000Z' } })

  const err = await load({ workflowsDir: fixture('bad-eval'), packagesFrom: t.testdir({}) }).catch((e: unknown) => e)
  t.ok(err instanceof DefinitionError)
  t.match((err as Error).message, `${fixture('bad-eval/eval.ts')}: the eval of judged names "stray", which is not an evaluator of that workflow`)
})
