import t from 'tap'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client, Connection } from '@temporalio/client'
import { DELIVERIES_TASK_QUEUE } from '@flowport/core/contract'
import { startEngine } from '../cli/engine.js'
import { build } from './helpers/app.js'
import { publishCatalog, startPolling } from './helpers/poller.js'

t.test('liveness is 200', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/health' })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok' })
})

t.test('ready when the engine answers and the default catalog is published', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/ready' })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { status: 'ready', engine: true, catalog: true, workers: true, reason: null })
  const own = res.json().catalogs.find((c: { catalog: string }) => c.catalog === process.env.FLOWPORT_TEST_CATALOG)
  t.match(own, { workers: { polling: true, pollers: Number, lastPollTime: String } }, 'the test worker polls the default catalog')
})

t.test('not ready while the default catalog is not published', async (t) => {
  const app = await build(t, { SERVICE_CATALOG_ID: 'never-published' })
  const res = await app.inject({ method: 'GET', url: '/ready' })
  t.equal(res.statusCode, 503)
  t.match(res.json(), { status: 'unavailable', engine: true, catalog: false, reason: /never-published/ })
})

t.test('readiness follows the engine down and back up without an API restart', async (t) => {
  // A second engine of this test's own, so stopping it leaves the shared one alone.
  const dbFile = join(mkdtempSync(join(tmpdir(), 'flowport-ready-')), 'temporal.db')
  let engine = await startEngine({ dbFile })
  const address = engine.address
  const port = Number(address.split(':')[1])
  t.teardown(() => engine.stop())

  // Publish a catalog the way a worker does, and poll its task queue as a worker would.
  const connection = await Connection.connect({ address })
  const client = new Client({ connection })
  await publishCatalog(client, 'ready-test')
  const stopPolling = startPolling(client, 'ready-test')
  t.teardown(async () => {
    await stopPolling()
    await connection.close()
  })

  const app = await build(t, { TEMPORAL_ADDRESS: address, SERVICE_CATALOG_ID: 'ready-test' })
  let first = 0
  // The engine lists the poller once its first poll has arrived.
  for (let i = 0; i < 20 && first !== 200; i++) {
    first = (await app.inject({ method: 'GET', url: '/ready' })).statusCode
    if (first !== 200) await new Promise((r) => setTimeout(r, 250))
  }
  t.equal(first, 200, 'ready at first')
  t.match((await app.inject({ method: 'GET', url: '/ready' })).json(), { status: 'ready', deliveryWorker: false }, 'ready without a delivery worker')
  const stopDeliveries = startPolling(client, DELIVERIES_TASK_QUEUE)
  t.teardown(stopDeliveries)
  let deliveries = false
  for (let i = 0; i < 40 && !deliveries; i++) {
    deliveries = (await app.inject({ method: 'GET', url: '/ready' })).json().deliveryWorker
    if (!deliveries) await new Promise((r) => setTimeout(r, 250))
  }
  t.ok(deliveries, 'and says so once one polls __flowport_deliveries')

  await engine.stop()
  const down = await app.inject({ method: 'GET', url: '/ready' })
  t.equal(down.statusCode, 503, 'not ready while the engine is down')
  t.match(down.json(), { status: 'unavailable', engine: false, reason: /unavailable/i })
  t.ok(down.headers['retry-after'])

  engine = await startEngine({ dbFile, port })
  t.equal(engine.address, address, 'the engine came back on the same address')
  let back = 0
  // The client reconnects on its own; allow it a few readiness probes.
  for (let i = 0; i < 20 && back !== 200; i++) {
    back = (await app.inject({ method: 'GET', url: '/ready' })).statusCode
    if (back !== 200) await new Promise((r) => setTimeout(r, 500))
  }
  t.equal(back, 200, 'ready again once the engine is back')
})
