import t from 'tap'
import { request } from 'undici'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { eventually, newId } from './helpers/workflows.js'

t.test('a client that disconnects from /workflow/run ends the wait, not the workflow', async (t) => {
  const logs: string[] = []
  const config = loadConfig({ TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: testCatalog(), LOG_LEVEL: 'info' })
  const app = await buildApp({ config, logger: { level: 'info', stream: { write: (line: string) => { logs.push(line) } } } })
  t.teardown(() => app.close())
  const address = await app.listen({ port: 0, host: '127.0.0.1' })

  const workflowId = newId('approval')
  const controller = new AbortController()
  const pending = request(`${address}/workflow/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workflowName: 'approval', input: { label: 'abandoned' }, workflowId, timeout: 600_000 }),
    signal: controller.signal
  })
  const handle = app.engine.client.workflow.getHandle(workflowId)
  const started = await eventually(() => handle.describe().then(() => true, () => false), (ok) => ok)
  t.ok(started, 'the run started while the client waits')

  controller.abort()
  await t.rejects(pending, 'the client gave up')

  const stopped = await eventually(async () => logs.some((l) => l.includes('client disconnected: stopped waiting')), (seen) => seen)
  t.ok(stopped, 'the server ended the wait and its long-poll')
  t.equal((await handle.describe()).status.name, 'RUNNING', 'the workflow keeps running')
  await handle.terminate('test cleanup')
})
