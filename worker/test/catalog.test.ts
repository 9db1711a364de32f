/**
 * Catalog publication: contents as the start input of the catalog workflow's current run (what
 * the API reads) with a small memo, the `get` query, replacement by continue-as-new, workers
 * starting together, a run of the older format (catalog in the memo) replaced.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { WorkflowContinuedAsNewError, type Client, type WorkflowHandle } from '@temporalio/client'
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js'
import { Value } from '@sinclair/typebox/value'
import { startWorker, type WorkerHandle } from '../src/index.js'
import {
  CATALOG_FORMAT, CATALOG_FORMAT_MEMO_KEY, CATALOG_HASH_MEMO_KEY, CATALOG_PUBLISHED_AT_MEMO_KEY, CATALOG_WORKFLOW_TYPE,
  CatalogEvaluatorSchema, CatalogHandlerSchema, CatalogSchema, CatalogStepSchema, CatalogWorkflowSchema,
  CatalogWorkflowSourceSchema, catalogMemo, catalogWorkflowId, type Catalog
} from '@flowport/core/contract'
import { getCatalogQuery, publish, replaceCatalogUpdate, type PublishedCatalog } from '../src/workflow/catalog.js'
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

/** The start input of a run, decoded as the API decodes it. */
async function inputOf (handle: WorkflowHandle): Promise<PublishedCatalog> {
  const [started] = await eventsOf(handle, 'workflowExecutionStarted')
  return await decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, started?.input?.payloads)
}

/** Bytes of the memo as stored by the engine (the engine and the SDK warn above 2 KiB). */
const memoBytes = (fields: Record<string, { data?: Uint8Array | null }>): number =>
  Object.entries(fields).reduce((sum, [key, payload]) => sum + key.length + (payload.data?.length ?? 0), 0)

async function published (catalogId: string): Promise<{ catalog: Catalog, hash: string, runId: string, memo: Record<string, unknown>, memoBytes: number }> {
  const handle = client.workflow.getHandle(catalogWorkflowId(catalogId))
  const description = await handle.describe()
  const run = client.workflow.getHandle(catalogWorkflowId(catalogId), description.runId, { followRuns: false })
  const input = await inputOf(run)
  return {
    catalog: input.catalog,
    hash: input.hash,
    runId: description.runId,
    memo: description.memo ?? {},
    memoBytes: memoBytes(description.raw.workflowExecutionInfo?.memo?.fields ?? {})
  }
}

t.test('the catalog is the start input of a long-running catalog workflow; its memo stays small', async (t) => {
  const catalogId = uniqueCatalog('publish')
  const worker = await startVersion('v1', catalogId)
  t.teardown(async () => { await worker.shutdown(); await endCatalog(client, catalogId) })

  const description = await client.workflow.getHandle(catalogWorkflowId(catalogId)).describe()
  t.equal(description.type, CATALOG_WORKFLOW_TYPE)
  t.equal(description.taskQueue, catalogId)
  t.equal(description.status.name, 'RUNNING')
  const { catalog, hash, memo, memoBytes } = await published(catalogId)
  t.ok(Value.Check(CatalogSchema, REFERENCES, catalog), 'matches CatalogSchema')
  t.match(hash, /^[0-9a-f]{64}$/)
  t.same(memo, { [CATALOG_HASH_MEMO_KEY]: hash, [CATALOG_PUBLISHED_AT_MEMO_KEY]: catalog.publishedAt, [CATALOG_FORMAT_MEMO_KEY]: CATALOG_FORMAT }, 'small facts only')
  t.ok(memoBytes < 2048, `memo of ${memoBytes} bytes, under the 2 KiB warning limit`)
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
      { name: 'first', description: 'The first step.', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, local: false },
      { name: 'second', description: null, inputSchema: { type: 'string' }, outputSchema: { type: 'string' }, local: false }
    ],
    evaluators: [{ name: 'judge', description: 'Scores n.', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, local: false }],
    signals: [
      { name: 'nudge', description: null, payloadSchema: null, resultSchema: null },
      { name: 'poke', description: 'Pokes.', payloadSchema: { type: 'object', properties: { by: { type: 'string' } }, required: ['by'] }, resultSchema: null }
    ],
    queries: [{ name: 'peek', description: null, payloadSchema: null, resultSchema: { type: 'integer' } }],
    updates: [
      { name: 'bump', description: null, payloadSchema: { type: 'integer' }, resultSchema: { type: 'integer' } },
      { name: 'reset', description: null, payloadSchema: null, resultSchema: null }
    ],
    source: { package: '@flowport/worker', version: '1.0.0' },
    versioning: 'pinned'
  }])
  t.equal(catalog.deployment, null, 'an unversioned worker names no version')
})

t.test('a worker with changed workflows continues the catalog workflow as new with its catalog; the same ones change nothing', async (t) => {
  const catalogId = uniqueCatalog('replace')
  t.teardown(async () => { await endCatalog(client, catalogId) })
  const v1 = await startVersion('v1', catalogId)
  const before = await published(catalogId)
  await v1.shutdown()

  const v2 = await startVersion('v2', catalogId)
  const after = await published(catalogId)
  t.not(after.runId, before.runId, 'a new run holds the new catalog')
  const previous = client.workflow.getHandle(catalogWorkflowId(catalogId), before.runId, { followRuns: false })
  t.ok(await previous.result().catch((e: unknown) => e) instanceof WorkflowContinuedAsNewError, 'the first run continued as new (no terminate, no restart)')
  t.equal((await eventsOf(previous, 'workflowExecutionUpdateAccepted')).length, 1, 'replaced by one update')
  t.not(after.hash, before.hash)
  t.equal(after.memo[CATALOG_HASH_MEMO_KEY], after.hash, 'the memo names the new catalog')
  t.same(after.catalog, v2.catalog)
  t.same(after.catalog.workflows.map((w) => [w.name, w.description]), [['added', 'New in v2.'], ['listed', 'v2']])
  t.same(await client.workflow.getHandle(catalogWorkflowId(catalogId)).query(getCatalogQuery), after.catalog, 'query get')
  await v2.shutdown()

  const again = await startVersion('v2', catalogId)
  const unchanged = await published(catalogId)
  t.equal(unchanged.runId, after.runId, 'same run')
  t.equal(unchanged.catalog.publishedAt, after.catalog.publishedAt, 'the published catalog is kept as is')
  t.same(again.catalog, after.catalog, 'the handle reports the catalog kept, publishedAt included')
  t.equal((await eventsOf(client.workflow.getHandle(catalogWorkflowId(catalogId), after.runId), 'workflowExecutionUpdateAccepted')).length, 0, 'no update')
  await again.shutdown()
})

t.test('a catalog rolls through five publications: each one after a continue-as-new replaces the catalog', async (t) => {
  // Code that differs only in a description: each is a new catalog. The third publication is the
  // first one sent while the catalog workflow's current run is not the first of its chain.
  const catalogId = uniqueCatalog('five')
  t.teardown(async () => { await endCatalog(client, catalogId) })
  const project = (n: number) => ({
    'index.ts': "export { listed } from './listed/workflow.js'\n",
    listed: {
      'workflow.ts': `import { Type } from '@sinclair/typebox'
import { defineWorkflow } from '@flowport/worker/workflow'
export const listed = defineWorkflow({ name: 'listed', description: 'publication ${n}', inputSchema: Type.Object({}), outputSchema: Type.Integer(), run: () => ${n} })
`
    }
  })
  const dir = t.testdir({ packages: {}, ...Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`v${n}`, project(n)])) })
  const runIds: string[] = []
  for (let n = 1; n <= 5; n++) {
    const logger = recordingLogger()
    const worker = await startWorker({ address: TEMPORAL_ADDRESS, namespace: TEMPORAL_NAMESPACE, catalogId, workflowsDir: join(dir, `v${n}`), packagesFrom: join(dir, 'packages'), logger })
    await worker.shutdown()
    t.match(logger.infos, [n === 1 ? /catalog published$/ : /catalog replaced$/], `publication ${n} logged as such`)
    t.same(logger.warnings, [], `publication ${n} without a retry`)
    const now = await published(catalogId)
    t.equal(now.catalog.workflows[0]?.description, `publication ${n}`, `publication ${n} is the catalog`)
    t.same(now.catalog, worker.catalog, `worker ${n} reports what it published`)
    runIds.push(now.runId)
  }
  t.equal(new Set(runIds).size, 5, 'each publication continued the chain as new')
})

t.test('two workers of one catalog starting together do not fight', async (t) => {
  const catalogId = uniqueCatalog('together')
  t.teardown(async () => { await endCatalog(client, catalogId) })
  const workers = await Promise.all([startVersion('v1', catalogId), startVersion('v1', catalogId)])
  t.teardown(async () => { await Promise.all(workers.map(async (w) => { await w.shutdown() })) })
  const { catalog, runId } = await published(catalogId)
  t.equal((await eventsOf(client.workflow.getHandle(catalogWorkflowId(catalogId), runId), 'workflowExecutionUpdateAccepted')).length, 0, 'nobody replaced anything')
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

t.test('the update continues the run as new only for a different catalog', async (t) => {
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
    args: [version(0)],
    memo: catalogMemo(version(0).catalog, version(0).hash)
  })
  t.same(await first.executeUpdate(replaceCatalogUpdate, { args: [version(0)] }), { replaced: false }, 'same hash: nothing to do')
  t.same((await first.describe()).runId, first.firstExecutionRunId, 'same run')
  await t.rejects(first.executeUpdate(replaceCatalogUpdate, { args: [{ hash: 'x' } as unknown as PublishedCatalog] }), 'not a catalog: rejected')
  t.same(await first.executeUpdate(replaceCatalogUpdate, { args: [version(1)] }), { replaced: true })

  const pinned = client.workflow.getHandle(workflowId, first.firstExecutionRunId, { followRuns: false })
  const ended = await pinned.result().catch((e: unknown) => e)
  t.ok(ended instanceof WorkflowContinuedAsNewError, 'the first run continued as new')
  const latest = client.workflow.getHandle(workflowId)
  const description = await latest.describe()
  t.not(description.runId, first.firstExecutionRunId)
  t.equal(description.status.name, 'RUNNING')
  t.same(description.memo, catalogMemo(version(1).catalog, 'hash-1'), 'the new run carries the small memo of its catalog')
  t.same(await inputOf(client.workflow.getHandle(workflowId, description.runId)), version(1), 'and the catalog as its input')
  t.same(await latest.query(getCatalogQuery), version(1).catalog)
})

t.test('a run of the older format (catalog in the memo) is replaced by a run of the current one', async (t) => {
  const catalogId = uniqueCatalog('format')
  t.teardown(async () => { await endCatalog(client, catalogId) })
  // As an older worker published it; no worker runs it (another workflow type), as after an upgrade.
  const old = await client.workflow.start('flowport-test-older-catalog', {
    workflowId: catalogWorkflowId(catalogId),
    taskQueue: catalogId,
    memo: { catalog: { catalog: catalogId, publishedAt: new Date().toISOString(), workflows: [] }, [CATALOG_HASH_MEMO_KEY]: 'older' }
  })
  const worker = await startVersion('v1', catalogId)
  t.teardown(async () => { await worker.shutdown() })
  const { status } = await client.workflow.getHandle(old.workflowId, old.firstExecutionRunId).describe()
  t.equal(status.name, 'TERMINATED', 'the older run was ended')
  const now = await published(catalogId)
  t.not(now.runId, old.firstExecutionRunId)
  t.equal(now.memo[CATALOG_FORMAT_MEMO_KEY], CATALOG_FORMAT)
  t.same(now.catalog, worker.catalog, 'the new run holds the catalog')
})

t.test('versioned workers keep one catalog per live version', async (t) => {
  const of = (buildId: string | null, description = 'same'): Catalog => ({
    catalog: 'c', publishedAt: '2026-11-28T00:00:00.000Z', deployment: buildId === null ? null : { deploymentName: 'c', buildId }, workflows: [{ description } as never]
  })
  const v1 = { catalog: of('v1'), hash: 'h1' }
  const first: PublishedCatalog = { ...v1, versions: { v1 } }
  const v2 = { catalog: of('v2'), hash: 'h2' }
  const both = publish(first, { ...v2, liveBuildIds: ['v1', 'v2'] })
  t.same(both, { ...v2, versions: { v1, v2 } }, 'v2 beside v1: both kept, v2 the latest')
  t.equal(publish(both!, { ...v1, liveBuildIds: ['v1', 'v2'] }), null, 'v1 again (a restart) changes nothing')
  t.same(publish(both!, { catalog: of('v3'), hash: 'h3', liveBuildIds: ['v2', 'v3'] })?.versions, { v2, v3: { catalog: of('v3'), hash: 'h3' } }, 'a version the deployment no longer lists is dropped')
  t.same(publish(both!, { catalog: of(null), hash: 'h0' }), { catalog: of(null), hash: 'h0', versions: { v1, v2 } }, 'an unversioned worker replaces the latest only')
})
