/**
 * Records the histories the replay test (test/replay.test.ts) replays: each example run once
 * against a real engine, its history saved as JSON under test/histories/. Re-record only on purpose
 * (a change that fails replay would break runs that are in flight when a worker is upgraded).
 *
 *   TEMPORAL_ADDRESS=localhost:7233 npx tsx --conditions=flowport-source examples/scripts/record-histories.ts
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Client, Connection, type WorkflowHandle, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client'
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js'
import { DefaultLogger, Runtime } from '@temporalio/worker'
import { startWorker } from '@flowport/worker'
import { CATALOG_WORKFLOW_TYPE, catalogWorkflowId } from '@flowport/core/contract'

const address = process.env.TEMPORAL_ADDRESS
if (address === undefined || address === '') throw new Error('Set TEMPORAL_ADDRESS to a Temporal server')
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default'
const root = fileURLToPath(new URL('../..', import.meta.url))
const out = fileURLToPath(new URL('../test/histories/', import.meta.url))
const catalogId = `record-histories-${randomUUID()}`
Runtime.install({ logger: new DefaultLogger('WARN') })

const worker = await startWorker({ address, namespace, catalogId, packagesFrom: root })
const connection = await Connection.connect({ address })
const client = new Client({ connection, namespace })

/**
 * Workflow ids matter to replay (child ids derive from them): a history file `<id>.json` or
 * `<id>.<run>.json` is recorded under the id `replay-<id>`, which the replay test passes back.
 */
const start = async (id: string, workflow: string, input: unknown): Promise<WorkflowHandleWithFirstExecutionRunId> =>
  await client.workflow.start(workflow, { taskQueue: catalogId, workflowId: `replay-${id}`, args: [input], workflowIdConflictPolicy: 'TERMINATE_EXISTING' })

async function save (name: string, handle: WorkflowHandle): Promise<void> {
  await handle.result().catch(() => {}) // failures and cancellations are histories too
  const history = await handle.fetchHistory()
  writeFileSync(`${out}${name}.json`, JSON.stringify(JSON.parse(historyToJSON(history)), null, 1) + '\n')
  console.log(`recorded ${name}: ${history.events?.length ?? 0} events`)
}

try {
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  await save('hello', await start('hello', 'hello', { name: 'Ada' }))
  await save('hello-alias', await start('hello-alias', 'hi', { name: 'Bo' }))
  await save('flaky', await start('flaky', 'flaky', { failures: 1 }))
  await save('explode', await start('explode', 'explode', { message: 'kaboom' }))
  await save('sleepy', await start('sleepy', 'sleepy', { steps: 3, delayMs: 10 }))
  await save('scored', await start('scored', 'scored', { text: 'Flowport runs workflows. It also publishes a catalog.' }))

  const relay = await start('relay', 'relay', { hops: 1 })
  await relay.result()
  await save('relay.first-run', client.workflow.getHandle(relay.workflowId, relay.firstExecutionRunId))
  await save('relay.last-run', client.workflow.getHandle(relay.workflowId))

  await save('parent', await start('parent', 'parent', { name: 'Cy' }))

  const approved = await start('approval-approved', 'approval', { label: 'draft' })
  await approved.query('state')
  await approved.executeUpdate('relabel', { args: [{ label: 'final' }] })
  await approved.executeUpdate('relabel', { args: [{ label: '' }] }).catch(() => {}) // rejected: not in history
  await approved.signal('approve', { by: 'Grace' })
  await save('approval-approved', approved)

  const stopped = await start('approval-stopped', 'approval', { label: 'pending' })
  await stopped.query('state')
  await stopped.cancel()
  await save('approval-stopped', stopped)

  // The catalog workflow runs in every worker's bundle: its code must stay replay-safe too. A new
  // catalog continues it as new: the first run ends there, the last one runs until terminated.
  const published = { catalog: worker.catalog, hash: 'recorded-1' }
  const catalog = await start('catalog', CATALOG_WORKFLOW_TYPE, published)
  await catalog.query('get')
  await catalog.executeUpdate('replace', { args: [published] })
  await catalog.executeUpdate('replace', { args: [{ catalog: { ...worker.catalog, publishedAt: '2026-01-01T00:00:00.000Z' }, hash: 'recorded-2' }] })
  const lastCatalog = client.workflow.getHandle(catalog.workflowId)
  await lastCatalog.query('get')
  await lastCatalog.terminate('recorded')
  await save('catalog.first-run', client.workflow.getHandle(catalog.workflowId, catalog.firstExecutionRunId))
  await save('catalog.last-run', lastCatalog)
} finally {
  await client.workflow.getHandle(catalogWorkflowId(catalogId)).terminate('recording finished').catch(() => {})
  await worker.shutdown()
  await connection.close()
}
