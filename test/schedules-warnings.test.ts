/**
 * `warnings` of GET /schedules/{scheduleId} against the real engine: a schedule's catalog changes
 * after it was stored (a test catalog, published the way a worker publishes one, is republished with
 * another input schema, then without the workflow), and the schedule says what would make its runs fail.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { catalogWorkflowId, type CatalogWorkflow } from '@flowport/core/contract'
import { build } from './helpers/app.js'
import { publishCatalog, startPolling } from './helpers/poller.js'
import { call, eventually } from './helpers/workflows.js'

t.test('warnings: the stored input no longer matches the catalog\'s schema; the workflow is gone from its catalog', async (t) => {
  const app = await build(t)
  const catalog = `drift-${randomUUID()}`
  const served = await call(t, app, { method: 'GET', url: '/workflow/catalog', route: '/workflow/catalog' })
  const hello = served.body.workflows.find((w: CatalogWorkflow) => w.name === 'hello') as CatalogWorkflow
  await publishCatalog(app.engine.client, catalog, [hello])
  const catalogRun = app.engine.client.workflow.getHandle(catalogWorkflowId(catalog))
  t.teardown(() => catalogRun.terminate('test over').catch(() => undefined))
  // A schedule is stored only for a catalog a worker polls; this one's tasks are never run (the schedule stays paused).
  t.teardown(startPolling(app.engine.client, catalog))

  const scheduleId = `sched-${randomUUID()}`
  const body = { scheduleId, workflowName: 'hello', catalog, input: { name: 'Ada' }, spec: { every: [{ interval: '1h' }] }, paused: true }
  const created = await eventually(async () => await call(t, app, { method: 'POST', url: '/schedules', route: '/schedules', payload: body }),
    (res) => res.status !== 503)
  t.equal(created.status, 201, 'created once the poller is seen')
  t.teardown(async () => { await app.engine.client.schedule.getHandle(scheduleId).delete().catch(() => undefined) })
  const read = async () => await call(t, app, { method: 'GET', url: `/schedules/${scheduleId}`, route: '/schedules/{scheduleId}' })
  t.same((await read()).body.warnings, [], 'no warning while the catalog accepts the stored input')

  // A worker publishes a new catalog as a new run of the catalog workflow.
  const republish = async (workflows: CatalogWorkflow[]) => {
    await catalogRun.terminate('replaced')
    await publishCatalog(app.engine.client, catalog, workflows)
  }
  const renamed = { type: 'object', properties: { fullName: { type: 'string' } }, required: ['fullName'], additionalProperties: false }
  await republish([{ ...hello, inputSchema: renamed }])
  const changed = await eventually(read, (res) => res.body.warnings.length > 0)
  t.equal(changed.status, 200, 'the schedule is still served as stored')
  t.same(changed.body.input, { name: 'Ada' })
  t.equal(changed.body.warnings.length, 1)
  t.match(changed.body.warnings[0], /^The stored input no longer matches the inputSchema of hello: .*fullName/)

  await republish([])
  const gone = await eventually(read, (res) => res.body.warnings.some((w: string) => w.includes('is not in catalog')))
  t.same(gone.body.warnings, [`Workflow hello is not in catalog ${catalog}`])
})
