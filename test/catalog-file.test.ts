/**
 * Catalog files (cli/catalog/file.ts): the example's file reads into the catalog a worker would
 * publish; a file with problems is refused, each problem naming its line: YAML syntax, fields the
 * format does not have, schemas the API's validator cannot compile, names used twice. JSON files
 * read the same. (test/catalog-publish.test.ts checks the published catalog against the API's contract.)
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { CatalogFileError, readCatalogFile } from '../cli/catalog/file.js'

const EXAMPLE = 'examples/python-worker/catalog.yaml'

const problemsOf = (text: string, file = 'c.yaml'): string[] => {
  try {
    readCatalogFile(text, file)
  } catch (err) {
    if (err instanceof CatalogFileError) return err.problems
    throw err
  }
  throw new Error('the file was accepted')
}

t.test('the example catalog file reads into a catalog of the published format', async (t) => {
  const { catalog, hash } = readCatalogFile(readFileSync(EXAMPLE, 'utf8'), EXAMPLE)
  t.equal(catalog.catalog, 'python-orders')
  t.equal(catalog.declared, true, 'marked as declared: the API knows no Flowport codec or trace writer is on its worker')
  const order = catalog.workflows.find((w) => w.name === 'order')
  t.equal(order?.workflowType, 'OrderWorkflow', 'the Temporal type a start uses')
  t.same(order?.signals.map((s) => [s.name, s.resultSchema]), [['approve', null]], 'a signal has no result')
  t.same(order?.updates.map((u) => u.name), ['set_discount'])
  t.same(catalog.workflows.find((w) => w.name === 'flaky')?.steps.map((s) => s.name), ['flaky_charge'], 'activities are the steps')
  t.match(hash, /^[0-9a-f]{64}$/)
  t.equal(readCatalogFile(readFileSync(EXAMPLE, 'utf8'), EXAMPLE).hash, hash, 'the same file hashes the same')
})

t.test('JSON is read as well', async (t) => {
  const { catalog } = readCatalogFile(JSON.stringify({ catalog: 'js', workflows: [{ name: 'a' }] }), 'c.json')
  t.same(catalog.workflows[0]?.inputSchema, {}, 'an absent schema accepts anything')
  t.equal(catalog.workflows[0]?.workflowType, undefined, 'no workflowType: the name is the type')
})

t.test('a YAML syntax error names its line', async (t) => {
  const [problem] = problemsOf('catalog: x\nworkflows:\n  - name: [a\n')
  t.match(problem, /^c\.yaml:\d+:\d+: /)
})

t.test('an unknown field, a missing one and a bad name name their lines', async (t) => {
  const problems = problemsOf([
    'catalog: x',
    'workflows:',
    '  - name: ok',
    '    inputs: {}', // not a field
    '  - description: no name',
    '  - name: has-dash'
  ].join('\n'))
  t.ok(problems.some((p) => p.startsWith('c.yaml:4:5: workflows.0.inputs is not a field')), problems.join('\n'))
  t.ok(problems.some((p) => /^c\.yaml:5:\d+: workflows\.1 must have required property 'name'/.test(p)), problems.join('\n'))
  t.ok(problems.some((p) => /^c\.yaml:6:\d+: workflows\.2\.name must match pattern/.test(p)), problems.join('\n'))
})

t.test('a schema the API cannot compile names its line', async (t) => {
  const problems = problemsOf([
    'catalog: x',
    'workflows:',
    '  - name: a',
    '    inputSchema:',
    '      type: nonsense'
  ].join('\n'))
  t.equal(problems.length, 1)
  t.match(problems[0], /^c\.yaml:5:\d+: workflows\.0\.inputSchema is not a JSON Schema the API can compile/)
})

t.test('names used twice are refused: workflows and aliases, workflow types, handlers, activities', async (t) => {
  const problems = problemsOf([
    'catalog: x',
    'workflows:',
    '  - name: a',
    '    workflowType: T',
    '    signals: [{ name: go }, { name: go }]',
    '    activities: [x, x]',
    '  - name: b',
    '    aliases: [a]',
    '    workflowType: T'
  ].join('\n'))
  t.ok(problems.some((p) => /^c\.yaml:8:\d+: workflows\.1\.aliases\.0 repeats name a \(line 3\)/.test(p)), problems.join('\n'))
  t.ok(problems.some((p) => /^c\.yaml:9:\d+: .*repeats workflow type T \(line 4\)/.test(p)), problems.join('\n'))
  t.ok(problems.some((p) => /^c\.yaml:5:\d+: .*repeats signal go/.test(p)), problems.join('\n'))
  t.ok(problems.some((p) => /^c\.yaml:6:\d+: .*repeats activity x/.test(p)), problems.join('\n'))
})

t.test('a catalog id Flowport reserves is refused', async (t) => {
  const [problem] = problemsOf('catalog: __flowport_x\nworkflows: [{ name: a }]\n')
  t.match(problem, /^c\.yaml:1:\d+: catalog must match pattern/)
})

t.test('a handler the worker names as the API cannot: the file maps a path-safe name to it, checked line by line', async (t) => {
  const [unsafe] = problemsOf([
    'catalog: x',
    'workflows:',
    '  - name: order',
    '    signals:',
    '      - name: order.approve'
  ].join('\n'))
  t.match(unsafe, /^c\.yaml:5:\d+: workflows\.0\.signals\.0\.name must match pattern .*: give clients such a name, and the worker's own in handlerName$/)

  const { catalog } = readCatalogFile([
    'catalog: x',
    'workflows:',
    '  - name: order',
    '    signals: [{ name: approve, handlerName: order.approve }]',
    '    queries: [{ name: state, handlerName: order state }, { name: plain }]',
    '    updates: [{ name: set_discount, handlerName: set-discount }]'
  ].join('\n'), 'c.yaml')
  const [order] = catalog.workflows
  t.same(order?.signals.map((h) => [h.name, h.handlerName]), [['approve', 'order.approve']])
  t.same(order?.queries.map((h) => [h.name, h.handlerName]), [['state', 'order state'], ['plain', undefined]], 'no handlerName: the name is the handler\'s')
  t.same(order?.updates.map((h) => [h.name, h.handlerName]), [['set_discount', 'set-discount']])

  const twice = problemsOf([
    'catalog: x',
    'workflows:',
    '  - name: order',
    '    signals:',
    '      - name: approve',
    '        handlerName: order.approve',
    '      - name: accept',
    '        handlerName: order.approve',
    '      - { name: order_approve }',
    '      - { name: approve }'
  ].join('\n'))
  t.ok(twice.some((p) => /^c\.yaml:8:\d+: workflows\.0\.signals\.1\.handlerName repeats signal handler name order\.approve \(line 6\)/.test(p)), twice.join('\n'))
  t.ok(twice.some((p) => /^c\.yaml:10:\d+: .*repeats signal approve \(line 5\)/.test(p)), twice.join('\n'))
  t.equal(twice.length, 2, 'a name used twice is one problem, not two')
})
