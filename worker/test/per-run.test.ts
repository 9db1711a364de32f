/**
 * A run loads the module of its own workflow, not every workflow of the catalog: the SDK evaluates
 * workflow modules again for each run, so the bundle's entry requires a workflow's file when that
 * workflow is called (worker/src/runtime/bundle.ts). A module that fails to load in a run breaks
 * only its own workflow.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { startWorker } from '../src/index.js'
import { connectClient, eventsOf, TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, uniqueCatalog } from './helpers/engine.js'
import { fixture } from './helpers/fixtures.js'
import { recordingLogger } from './helpers/logger.js'

t.test('a run of one workflow never loads the module of another', async (t) => {
  const catalogId = uniqueCatalog('per-run')
  const worker = await startWorker({ address: TEMPORAL_ADDRESS, namespace: TEMPORAL_NAMESPACE, catalogId, workflowsDir: fixture('per-run'), packagesFrom: t.testdir({}), logger: recordingLogger() })
  t.teardown(async () => { await worker.shutdown() })
  const client = await connectClient(t)
  t.same(worker.catalog.workflows.map((w) => w.name).sort(), ['fine', 'loadsBadly'])

  const fine = await client.workflow.start('fine', { taskQueue: catalogId, workflowId: `fine-${randomUUID()}`, args: [{}] })
  t.same(await fine.result(), { ok: true }, 'fine completes beside a module that cannot load in a run')

  const bad = await client.workflow.start('loadsBadly', { taskQueue: catalogId, workflowId: `bad-${randomUUID()}`, args: [{}] })
  t.teardown(async () => { await bad.terminate('test done') })
  let failures: Awaited<ReturnType<typeof eventsOf>> = []
  for (let i = 0; i < 100 && failures.length === 0; i++) {
    failures = await eventsOf(bad, 'workflowTaskFailed')
    if (failures.length === 0) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.match(failures[0]?.failure?.message, 'loadsBadly cannot be loaded in a run', 'its own run fails to load it')
})
