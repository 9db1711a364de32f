/**
 * `flowport catalog publish|show|remove` against the real engine, read back through the API as any
 * catalog: published, shown, replaced (a new ETag), listed by /ready under its own id, removed.
 * A catalog file and a Flowport worker never share a catalog id: either side is refused with a
 * message that says what to do. No worker of the declared catalog runs here
 * (test/python-worker.test.ts runs one).
 */
import t from 'tap'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { stringify } from 'yaml'
import { build } from './helpers/app.js'
import { call, eventually } from './helpers/workflows.js'
import { flowport } from './helpers/flowport-cli.js'
import { spawnWorker } from './helpers/worker-process.js'
import { testCatalog } from './helpers/env.js'

const dir = mkdtempSync(join(tmpdir(), 'flowport-catalog-'))
const catalogId = `declared-${randomUUID()}`
const file = (name: string, content: unknown): string => {
  const path = join(dir, name)
  writeFileSync(path, typeof content === 'string' ? content : stringify(content))
  return path
}
const declared = (description: string) => ({
  catalog: catalogId,
  workflows: [{
    name: 'order',
    workflowType: 'OrderWorkflow',
    description,
    inputSchema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
    signals: [{ name: 'approve', payloadSchema: { type: 'object' } }]
  }]
})

t.test('publish, show, replace, list and remove a declared catalog', async (t) => {
  const app = await build(t)
  const read = async () => await call(t, app, { method: 'GET', url: `/workflow/catalog/${catalogId}`, route: '/workflow/catalog/{catalogId}' })

  const first = await flowport(['catalog', 'publish', file('v1.yaml', declared('first'))])
  t.equal(first.code, 0, first.stderr)
  t.match(first.stdout, `catalog ${catalogId} published: order`)
  const v1 = await read()
  t.equal(v1.status, 200, 'the API reads it as any catalog')
  t.equal(v1.body.declared, true)
  t.same(v1.body.workflows.map((w: { name: string, workflowType?: string }) => [w.name, w.workflowType]), [['order', 'OrderWorkflow']])
  t.equal(v1.body.workers.polling, false, 'no worker polls its task queue yet')

  const start = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { catalog: catalogId, workflowName: 'order', input: { item: 'x' } } })
  t.equal(start.status, 503, 'a start waits for a worker: none polls')
  t.match(start.body.message, 'no worker polls its task queue')

  const shown = await flowport(['catalog', 'show', catalogId])
  t.equal(shown.code, 0, shown.stderr)
  t.match(shown.stdout, `# catalog ${catalogId}, published by a catalog file`)
  t.match(shown.stdout, 'workflowType: OrderWorkflow')

  const again = await flowport(['catalog', 'publish', file('v1-again.yaml', declared('first'))])
  t.match(again.stdout, 'unchanged', 'the same catalog is kept')

  const second = await flowport(['catalog', 'publish', file('v2.yaml', declared('second'))])
  t.equal(second.code, 0, second.stderr)
  t.match(second.stdout, 'replaced')
  // Catalogs are cached for 2 s by the API.
  const v2 = await eventually(read, (r) => r.body?.workflows?.[0]?.description === 'second')
  t.equal(v2.body.workflows[0].description, 'second', 'the replacement is served')
  t.not(v2.headers.etag, v1.headers.etag, 'and its ETag changed')

  const ready = await eventually(async () => (await app.inject({ method: 'GET', url: '/ready' })).json(),
    (r: { catalogs: Array<{ catalog: string }> }) => r.catalogs.some((c) => c.catalog === catalogId))
  t.ok(ready.catalogs.some((c: { catalog: string }) => c.catalog === catalogId), '/ready lists it under its own id (not its run\'s task queue)')
  t.notOk(ready.catalogs.some((c: { catalog: string }) => c.catalog.startsWith('__flowport')), 'never under the queue its run waits on')

  const removed = await flowport(['catalog', 'remove', catalogId])
  t.equal(removed.code, 0, removed.stderr)
  const gone = await eventually(read, (r) => r.status === 503)
  t.equal(gone.status, 503, 'removed: no longer available')
  const again404 = await flowport(['catalog', 'show', catalogId])
  t.equal(again404.code, 1)
  t.match(again404.stderr, 'is not published')
})

t.test('a file with problems is refused before anything is published, naming the line', async (t) => {
  const bad = await flowport(['catalog', 'publish', file('bad.yaml', `catalog: ${catalogId}-bad\nworkflows:\n  - name: a\n    inputSchema: { type: nonsense }\n`)])
  t.equal(bad.code, 2)
  t.match(bad.stderr, /bad\.yaml:4:\d+: workflows\.0\.inputSchema is not a JSON Schema/)
  const shown = await flowport(['catalog', 'show', `${catalogId}-bad`])
  t.equal(shown.code, 1, 'nothing was published')
  const checked = await flowport(['catalog', 'publish', '--check', file('ok.yaml', declared('ok'))])
  t.equal(checked.code, 0, checked.stderr)
  t.match(checked.stdout, '1 workflow(s): order')
})

t.test('a catalog file cannot take a Flowport worker\'s catalog id', async (t) => {
  const refused = await flowport(['catalog', 'publish', file('theirs.yaml', { ...declared('x'), catalog: testCatalog() })])
  t.equal(refused.code, 1)
  t.match(refused.stderr, `Catalog ${testCatalog()} is published by a Flowport worker`)
  const shown = await flowport(['catalog', 'show', testCatalog()])
  t.match(shown.stdout, 'published by a Flowport worker', 'the worker\'s catalog is still there')
})

t.test('a Flowport worker cannot publish on a declared catalog\'s id', async (t) => {
  const id = `${catalogId}-taken`
  const published = await flowport(['catalog', 'publish', file('taken.yaml', { ...declared('x'), catalog: id })])
  t.equal(published.code, 0, published.stderr)
  const worker = spawnWorker(t, { SERVICE_CATALOG_ID: id, SERVICE_WORKFLOWS_DIR: join(process.cwd(), 'test/fixtures/drift/v1'), LOG_LEVEL: 'warn' }, process.cwd())
  const code = await worker.exited
  t.equal(code, 1, 'the worker does not start')
  t.match(worker.output(), `Catalog ${id} is declared by a catalog file`)
  t.notMatch(worker.output(), 'retrying', 'and does not retry: the refusal is the same on every attempt')
  const shown = await flowport(['catalog', 'show', id])
  t.match(shown.stdout, 'published by a catalog file', 'the declared catalog is untouched')
  await flowport(['catalog', 'remove', id])
})
