/**
 * A worker with tracing switched off (SERVICE_TRACE_ENABLED=false): runs complete and nothing is
 * logged about the trace keeper the workflow runtime notifies at the end of every run.
 */
import t from 'tap'
import { resolve } from 'node:path'
import { build } from './helpers/app.js'
import { newId } from './helpers/workflows.js'
import { spawnWorker } from './helpers/worker-process.js'

t.test('tracing off: runs complete, the worker logs no error', async (t) => {
  const catalog = newId('trace-off')
  const worker = spawnWorker(t, {
    SERVICE_TRACE_ENABLED: 'false',
    SERVICE_CATALOG_ID: catalog,
    SERVICE_WORKFLOWS_DIR: resolve('test/fixtures/workflows')
  }, process.cwd())
  await worker.waitFor(`Worker polling catalog ${catalog}`)

  const app = await build(t, { SERVICE_CATALOG_ID: catalog, SERVICE_TRACE_ENABLED: 'false' })
  for (const [workflowName, input, status] of [['hello', { name: 'a' }, 'completed'], ['explode', { message: 'boom' }, 'failed']] as const) {
    const res = await app.inject({ method: 'POST', url: '/workflow/run', payload: { workflowName, input } })
    t.equal(res.statusCode, 200)
    t.equal(res.json<{ status: string }>().status, status, `${workflowName} ${status}`)
  }
  t.notMatch(worker.output(), /unregistered external sink/, 'the trace sink is registered')
  t.notMatch(worker.output(), /\[ERROR\]/, 'no error logged')
})
