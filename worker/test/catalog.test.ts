/**
 * Catalog publication: contents in the memo of the catalog workflow (what the API reads with
 * describe), the `get` query, replacement in place, workers starting together, continue-as-new.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { WorkflowContinuedAsNewError, type Client } from '@temporalio/client'
import { Value } from '@sinclair/typebox/value'
import { startWorker, type WorkerHandle } from '../src/index.js'
import {
  CATALOG_HASH_MEMO_KEY, CATALOG_MEMO_KEY, CATALOG_WORKFLOW_TYPE, CatalogEvaluatorSchema, CatalogHandlerSchema,
  CatalogSchema, CatalogStepSchema, CatalogWorkflowSchema, CatalogWorkflowSourceSchema, catalogWorkflowId, type Catalog
} from '../src/contract.js'
import { catalogMemo, getCatalogQuery, replaceCatalogUpdate } from '../src/workflow/catalog.js'
import { connectClient, endCatalog, eventsOf, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, uniqueCatalog } from './helpers/engine.js'
import { fixture } from './helpers/fixtures.js'
import { recordingLogger } from './helpers/logger.js'

const REFERENCES = [CatalogWorkflowSchema, CatalogStepSchema, CatalogEvaluatorSchema, CatalogHandlerSchema, CatalogWorkflowSourceSchema]
let client: Client
t.before(async () => { client = await connectClient(t) })

const startVersion = async (version: 'v1' | 'v2', catalogId: string): Promise<WorkerHandle> => await startWorker({
  address: TEMPORAL_ADDRESS,
  namespace: TEMPORAL_NAMESPACE,
  catalogId,
  workflowsDir: fixture(`catalog-${version}`),
  packagesFrom: t.testdir({}),
  logger: recordingLogger(),
  reuseBundle: true
})

async function published (catalogId: string): Promise<{ catalog: Catalog, hash: string, runId: string, updates: number }> {
  const handle = client.workflow.getHandle(catalogWorkflowId(catalogId))
  const description = await handle.describe()
  return {
    catalog: description.memo?.[CATALOG_MEMO_KEY] as Catalog,
    hash: description.memo?.[CATALOG_HASH_MEMO_KEY] as string,
    runId: description.runId,
    updates: (await eventsOf(handle, 'workflowExecutionUpdateAccepted')).length
  }
}

t.test('the catalog is published in the memo of a long-running catalog workflow', async (t) => {
  const catalogId = uniqueCatalog('publish')
  const worker = await startVersion('v1', catalogId)
  t.teardown(async () => { await worker.shutdown(); await endCatalog(client, catalogId) })

  const description = await client.workflow.getHandle(catalogWorkflowId(catalogId)).describe()
  t.equal(description.type, CATALOG_WORKFLOW_TYPE)
  t.equal(description.taskQueue, catalogId)
  t.equal(description.status.name, 'RUNNING')
  const { catalog, hash } = await published(catalogId)
  t.ok(Value.Check(CatalogSchema, REFERENCES, catalog), 'matches CatalogSchema')
  t.match(hash, /^[0-9a-f]{64}$/)
  t.equal(catalog.catalog, catalogId)
  t.same(catalog, worker.catalog, 'the handle reports what was published')
  t.same(await client.workflow.getHandle(catalogWorkflowId(catalogId)).query(getCatalogQuery), catalog, 'query get')

  t.same(catalog.workflows, [{
    name: 'listed',
    description: 'v1',
    aliases: ['enlisted'],
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    steps: [
      { name: 'first', description: 'The first step.', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
      { name: 'second', description: null, inputSchema: { type: 'string' }, outputSchema: { type: 'string' } }
    ],
    evaluators: [{ name: 'judge', description: 'Scores n.', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }],
    signals: [
      { name: 'nudge', description: null, payloadSchema: null, resultSchema: null },
      { name: 'poke', description: 'Pokes.', payloadSchema: { type: 'object', properties: { by: { type: 'string' } }, required: ['by'] }, resultSchema: null }
    ],
    queries: [{ name: 'peek', description: null, payloadSchema: null, resultSchema: { type: 'integer' } }],
    updates: [
      { name: 'bump', description: null, payloadSchema: { type: 'integer' }, resultSchema: { type: 'integer' } },
      { name: 'reset', description: null, payloadSchema: null, resultSchema: null }
    ],
    source: { package: '@flowport/worker', version: '1.0.0' }
  }])
})

t.test('a worker with changed workflows replaces the catalog in place; the same ones change nothing', async (t) => {
  const catalogId = uniqueCatalog('replace')
  t.teardown(async () => { await endCatalog(client, catalogId) })
  const v1 = await startVersion('v1', catalogId)
  const before = await published(catalogId)
  await v1.shutdown()

  const v2 = await startVersion('v2', catalogId)
  const after = await published(catalogId)
  t.equal(after.runId, before.runId, 'same run: no terminate, no restart')
  t.not(after.hash, before.hash)
  t.same(after.catalog.workflows.map((w) => [w.name, w.description]), [['added', 'New in v2.'], ['listed', 'v2']])
  t.equal(after.updates, 1, 'replaced by one update')
  await v2.shutdown()

  const again = await startVersion('v2', catalogId)
  const unchanged = await published(catalogId)
  t.equal(unchanged.hash, after.hash)
  t.equal(unchanged.catalog.publishedAt, after.catalog.publishedAt, 'the published catalog is kept as is')
  t.equal(unchanged.updates, 1, 'no further update')
  await again.shutdown()
})

t.test('two workers of one catalog starting together do not fight', async (t) => {
  const catalogId = uniqueCatalog('together')
  t.teardown(async () => { await endCatalog(client, catalogId) })
  const workers = await Promise.all([startVersion('v1', catalogId), startVersion('v1', catalogId)])
  t.teardown(async () => { await Promise.all(workers.map(async (w) => { await w.shutdown() })) })
  const { catalog, updates } = await published(catalogId)
  t.equal(updates, 0, 'nobody replaced anything')
  t.same(workers[0].catalog, catalog)
  t.same(workers[1].catalog, catalog, 'both report the one catalog published (same publishedAt)')
  const runs: string[] = []
  // Visibility is written asynchronously: wait until the run shows up, then count.
  for (let i = 0; i < 50 && runs.length === 0; i++) {
    for await (const run of client.workflow.list({ query: `WorkflowId = '${catalogWorkflowId(catalogId)}'` })) runs.push(run.runId)
    if (runs.length === 0) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(runs.length, 1, 'one catalog run')
})

t.test('the catalog workflow continues as new after many replacements and keeps the catalog', async (t) => {
  const catalogId = uniqueCatalog('continue')
  const worker = await startVersion('v1', catalogId)
  const workflowId = `catalog-continue-${randomUUID()}`
  t.teardown(async () => {
    await client.workflow.getHandle(workflowId).terminate().catch(() => {})
    await worker.shutdown()
    await endCatalog(client, catalogId)
  })
  const base = worker.catalog
  const version = (n: number) => ({ catalog: { ...base, publishedAt: new Date(Date.UTC(2026, 0, n)).toISOString() }, hash: `hash-${n}` })
  const first = await client.workflow.start(CATALOG_WORKFLOW_TYPE, {
    workflowId,
    taskQueue: catalogId,
    args: [{ ...version(0), replacementsPerRun: 2 }],
    memo: catalogMemo(version(0))
  })
  t.same(await first.executeUpdate(replaceCatalogUpdate, { args: [version(0)] }), { replaced: false }, 'same hash: nothing to do')
  t.same(await first.executeUpdate(replaceCatalogUpdate, { args: [version(1)] }), { replaced: true })
  t.same(await first.executeUpdate(replaceCatalogUpdate, { args: [version(2)] }), { replaced: true })

  const pinned = client.workflow.getHandle(workflowId, first.firstExecutionRunId, { followRuns: false })
  const ended = await pinned.result().catch((e: unknown) => e)
  t.ok(ended instanceof WorkflowContinuedAsNewError, 'the first run continued as new')
  const latest = client.workflow.getHandle(workflowId)
  const description = await latest.describe()
  t.not(description.runId, first.firstExecutionRunId)
  t.equal(description.status.name, 'RUNNING')
  t.equal(description.memo?.[CATALOG_HASH_MEMO_KEY], 'hash-2', 'memo carried to the new run')
  t.same(description.memo?.[CATALOG_MEMO_KEY], version(2).catalog)
  t.same(await latest.query(getCatalogQuery), version(2).catalog)
})
