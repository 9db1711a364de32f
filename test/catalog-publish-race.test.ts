/**
 * `flowport catalog publish` many at once (cli/catalog/publish.ts): publications that all saw no
 * catalog make one run, not one each terminating the others; different files all succeed, one
 * published and the others replacing it; and a Flowport worker's catalog run started among them
 * is never terminated by a publication (each is refused once it sees the worker's run).
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { CATALOG_WORKFLOW_TYPE, catalogMemo, catalogWorkflowId } from '@flowport/core/contract'
import { build } from './helpers/app.js'
import { readCatalogFile } from '../cli/catalog/file.js'
import { CatalogConflictError, publishDeclaredCatalog, removeDeclaredCatalog } from '../cli/catalog/publish.js'

const MANY = 8

const fileOf = (catalogId: string, description: string) =>
  readCatalogFile(JSON.stringify({ catalog: catalogId, workflows: [{ name: 'order', workflowType: 'OrderWorkflow', description }] }), 'catalog.json')

t.test('the same file published many times at once: one run, published once, current for the others', async (t) => {
  const app = await build(t)
  const catalogId = `race-same-${randomUUID()}`
  t.teardown(async () => { await removeDeclaredCatalog(app.engine.client, catalogId).catch(() => undefined) })
  const { catalog, hash } = fileOf(catalogId, 'one')
  const outcomes = await Promise.all(Array.from({ length: MANY }, async () => await publishDeclaredCatalog(app.engine.client, catalog, hash)))
  t.equal(outcomes.filter((o) => o.outcome === 'published').length, 1, 'published once')
  t.equal(outcomes.filter((o) => o.outcome === 'current').length, MANY - 1, 'the others found it published')
  const open = await app.engine.client.workflow.getHandle(catalogWorkflowId(catalogId)).describe()
  t.same([...new Set(outcomes.map((o) => o.runId))], [open.runId], 'every publication names the one run, which is open')
})

t.test('different files published at once: all succeed, one publishes, the others replace it', async (t) => {
  const app = await build(t)
  const catalogId = `race-different-${randomUUID()}`
  t.teardown(async () => { await removeDeclaredCatalog(app.engine.client, catalogId).catch(() => undefined) })
  const outcomes = await Promise.all(Array.from({ length: MANY }, async (_, i) => {
    const { catalog, hash } = fileOf(catalogId, `file ${i}`)
    return await publishDeclaredCatalog(app.engine.client, catalog, hash)
  }))
  t.equal(outcomes.filter((o) => o.outcome === 'published').length, 1, 'one found nothing published and published')
  t.equal(outcomes.filter((o) => o.outcome !== 'published').length, MANY - 1)
  const open = await app.engine.client.workflow.getHandle(catalogWorkflowId(catalogId)).describe()
  t.ok(outcomes.some((o) => o.runId === open.runId), 'the open run is one publication\'s')
})

t.test('a Flowport worker\'s catalog started among publications is never terminated by one', async (t) => {
  const app = await build(t)
  const catalogId = `race-worker-${randomUUID()}`
  const workflowId = catalogWorkflowId(catalogId)
  t.teardown(async () => { await app.engine.client.workflow.getHandle(workflowId).terminate('test over').catch(() => undefined) })
  const { catalog, hash } = fileOf(catalogId, 'file')
  // As worker/src/runtime/publish.ts starts it: on the catalog's own queue, joining a run already open.
  const worker = async () => await app.engine.client.workflow.start(CATALOG_WORKFLOW_TYPE, {
    workflowId, taskQueue: catalogId, args: [{ catalog: { ...catalog, declared: undefined }, hash }], memo: catalogMemo(catalog, hash), workflowIdConflictPolicy: 'USE_EXISTING'
  })
  const settled = await Promise.allSettled([
    ...Array.from({ length: MANY / 2 }, async () => await publishDeclaredCatalog(app.engine.client, catalog, hash)),
    worker(),
    ...Array.from({ length: MANY / 2 }, async () => await publishDeclaredCatalog(app.engine.client, catalog, hash))
  ])
  const joined = (await worker()).firstExecutionRunId
  const open = await app.engine.client.workflow.getHandle(workflowId).describe()
  if (open.taskQueue === catalogId) {
    t.pass('the worker\'s run won')
    t.equal(open.runId, joined)
    const workerStart = settled[MANY / 2]
    t.ok(workerStart?.status === 'fulfilled' && 'firstExecutionRunId' in workerStart.value && workerStart.value.firstExecutionRunId === open.runId,
      'the run the worker started is still open: no publication terminated it')
    const refused = settled.filter((s) => s.status === 'rejected')
    t.ok(refused.every((s) => s.reason instanceof CatalogConflictError), 'a publication after it is refused as the worker\'s')
  } else {
    t.pass('a publication won: the worker joins the declared run (and refuses to publish over it)')
    t.equal(open.runId, joined)
  }
  const runs = app.engine.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })
  let terminated = 0
  for await (const run of runs) if (run.status.name === 'TERMINATED' && run.taskQueue === catalogId) terminated++
  t.equal(terminated, 0, 'no run of the worker was terminated')
})
