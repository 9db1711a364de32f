/**
 * One receiver that hangs cannot take every delivery slot (docs/webhooks.md, "A receiver that
 * hangs"): on a worker of the test's own with 3 delivery slots and at most 1 POST per receiver
 * (ENGINE_MAX_WEBHOOK_DELIVERIES_PER_RECEIVER), three deliveries to a receiver that never answers
 * hold one slot at a time; the others are not sent and are tried again later; a healthy receiver's
 * delivery arrives meanwhile; once the hung receiver answers, every delivery to it is delivered.
 */
import t, { type Test } from 'tap'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { call, eventually, newId } from './helpers/workflows.js'
import { catalogWorker, deliveryDone, newSecret, receiver } from './helpers/webhooks.js'

/** A receiver that holds every request open (the attempt ends at its 10 s deadline) until told to answer; counts those open at once. */
async function hungReceiver (t: Test) {
  const held = new Set<ServerResponse>()
  const state = { open: 0, maxOpen: 0, requests: 0, answering: false }
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      state.requests++
      if (state.answering) {
        res.end()
        return
      }
      state.open++
      state.maxOpen = Math.max(state.maxOpen, state.open)
      held.add(res)
      res.on('close', () => { held.delete(res); state.open-- })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { server.close(() => { resolve() }); server.closeAllConnections() }))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { state, url: (path: string) => `${base}${path}`, answer: () => { state.answering = true; for (const res of held) res.end() } }
}

async function hello (t: Test, app: App, name: string, url: string) {
  const res = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'hello', input: { name }, webhook: { url, secret: newSecret() } } })
  t.equal(res.status, 200, `${name} started`)
  return { workflowId: res.body.workflowId as string, runId: res.body.runId as string }
}

const webhookOf = async (t: Test, app: App, run: { workflowId: string, runId: string }) =>
  (await call(t, app, { method: 'GET', url: `/workflow/${run.workflowId}/runs/${run.runId}/status`, route: '/workflow/{id}/runs/{rid}/status' })).body.webhook as { state: string, lastError: string | null }

t.test('a receiver that hangs holds at most its cap of the delivery slots: a healthy receiver is served meanwhile, and nothing is lost', async (t) => {
  const catalog = newId('webhook-cap')
  await catalogWorker(t, catalog, { ENGINE_MAX_CONCURRENT_WEBHOOK_DELIVERIES: '3', ENGINE_MAX_WEBHOOK_DELIVERIES_PER_RECEIVER: '1' })
  const app = await build(t, { SERVICE_CATALOG_ID: catalog })
  const hung = await hungReceiver(t)
  const hooks = await receiver(t)

  const stuck = [await hello(t, app, 'Hung1', hung.url('/1')), await hello(t, app, 'Hung2', hung.url('/2')), await hello(t, app, 'Hung3', hung.url('/3'))]
  // The cap at work: a delivery to the hung receiver is not sent while another one is under way.
  const notSent = (h: { lastError: string | null }) => /^Not sent: 1 POSTs to http:\/\/127\.0\.0\.1:\d+ are under way from this worker/.test(h.lastError ?? '')
  const deferred = await eventually(async () => await Promise.all(stuck.map(async (run) => await webhookOf(t, app, run))), (hooks) => hooks.some(notSent), 240)
  t.ok(deferred.some(notSent), 'an attempt past the cap is not sent')
  t.ok(deferred.every((h) => h.state === 'pending'), 'the deliveries to the hung receiver wait, none failed')

  const healthy = await hello(t, app, 'Healthy', hooks.url('/ok'))
  t.equal((await deliveryDone(app, healthy)).state, 'delivered', 'the healthy receiver got its delivery')
  t.ok(hung.state.requests >= 1, 'while the hung receiver held its POST')
  t.equal(hung.state.maxOpen, 1, 'the hung receiver never held more than its cap of the slots')

  hung.answer()
  for (const run of stuck) t.equal((await deliveryDone(app, run)).state, 'delivered', `${run.workflowId}: delivered once the receiver answers`)
})
