/**
 * Completion webhooks against the real engine and worker, delivered to a real HTTP receiver the
 * test starts; every delivery is checked with the Standard Webhooks verifier (docs/webhooks.md).
 */
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { Webhook } from 'standardwebhooks'
import { Client, Connection } from '@temporalio/client'
import { PassThrough } from 'node:stream'
import type { InjectOptions } from 'fastify'
import { buildApp } from '../app.js'
import { build, traceEnv } from './helpers/app.js'
import { call, eventually, newId, waitClosed } from './helpers/workflows.js'
import { deliveryWorkflowId, webhookRunMemo } from '../plugins/app/webhooks/webhooks.js'
import { deliveryDone, deliveryIdOf, newSecret, receiver, verified } from './helpers/webhooks.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { WEBHOOK_AWAIT_ACTIVITY, WEBHOOK_DELIVER_ACTIVITY, webhookDeliveryQueue } from '@flowport/core/contract'

const startCall = (payload: unknown, headers?: Record<string, string>) => ({ method: 'POST' as const, url: '/workflow/start', route: '/workflow/start', payload, headers })

/**
 * The body is the run's WorkflowResult, as a result read later answers it, except that the body,
 * built at the close, names the trace's bucket copy only if it was written by then (issue 49).
 */
function sameResult (t: Test, body: any, result: any, message: string): void {
  const remote = body?.trace?.destinations?.remote
  t.ok(remote === null || remote === result?.trace?.destinations?.remote, `${message}: the bucket copy named only once written`)
  t.same({ ...body, trace: body?.trace && { ...body.trace, destinations: { ...body.trace.destinations, remote: null } } },
    { ...result, trace: result?.trace && { ...result.trace, destinations: { ...result.trace.destinations, remote: null } } }, message)
}

t.test('a completed run delivers its WorkflowResult once, signed and verifiable; the status reports it', async (t) => {
  const app = await build(t)
  const hooks = await receiver(t)
  const secret = newSecret()
  const started = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'Ada' }, webhook: { url: hooks.url('/completed'), secret } }))
  t.equal(started.status, 200)
  const [delivery] = await hooks.until('/completed', 1)
  const payload = verified(t, secret, delivery)
  const result = await call(t, app, { method: 'GET', url: `/workflow/${started.body.workflowId as string}/result`, route: '/workflow/{id}/result' })
  sameResult(t, payload, result.body, 'the body is the run\'s WorkflowResult')
  t.throws(() => new Webhook(newSecret()).verify(delivery.body, delivery.headers as Record<string, string>), 'another secret does not verify')
  const record = await deliveryDone(app, started.body)
  t.equal(record.state, 'delivered')
  t.equal(hooks.received('/completed').length, 1, 'delivered once')
  const status = await eventually(
    async () => await call(t, app, { method: 'GET', url: `/workflow/${started.body.workflowId as string}/runs/${started.body.runId as string}/status`, route: '/workflow/{id}/runs/{rid}/status' }),
    (s) => s.body.webhook?.state === 'delivered')
  t.match(status.body.webhook, { url: hooks.url('/completed'), state: 'delivered', attempts: 1, lastResponseStatus: 200, lastError: null })
  t.notOk(JSON.stringify(status.body).includes(secret), 'the status never shows the secret')
  const history = await app.inject({ method: 'GET', url: `/workflow/${started.body.workflowId as string}/history?includePayloads=true` })
  t.equal(history.statusCode, 200)
  t.notOk(history.body.includes(secret.slice(6)), 'nor does the run\'s history')
  const deliveryId = await deliveryIdOf(app, started.body)
  const internal = await app.inject({ method: 'GET', url: `/workflow/${encodeURIComponent(deliveryId)}/history?includePayloads=true` })
  t.equal(internal.statusCode, 404, 'the delivery workflow (which holds the secret) is not the API\'s to show')
  // The POST ran on the catalog's delivery queue, whose slots are not the steps'.
  const { events } = await app.engine.client.workflow.getHandle(deliveryId).fetchHistory()
  const scheduled = (events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes ?? [])
  const queuesOf = (type: string) => [...new Set(scheduled.filter((a) => a.activityType?.name === type).map((a) => a.taskQueue?.name))]
  t.same(queuesOf(WEBHOOK_AWAIT_ACTIVITY), [testCatalog()], 'the run is awaited on the catalog\'s queue')
  t.same(queuesOf(WEBHOOK_DELIVER_ACTIVITY), [webhookDeliveryQueue(testCatalog())], 'the POST is sent from its delivery queue')
  const listed = await eventually(
    async () => await call(t, app, { method: 'GET', url: `/workflow/runs?catalog=${testCatalog()}&pageSize=1000`, route: '/workflow/runs' }),
    (page) => page.body.runs.some((r: { workflowId: string }) => r.workflowId === started.body.workflowId))
  t.notOk(listed.body.runs.some((r: { workflowName: string }) => r.workflowName.startsWith('__flowport')), 'nor lists it')
})

t.test('failed, terminated and timed-out runs deliver once too', async (t) => {
  const app = await build(t)
  const hooks = await receiver(t)
  const secret = newSecret()
  const failed = await call(t, app, startCall({ workflowName: 'explode', input: { message: 'boom' }, webhook: { url: hooks.url('/failed'), secret } }))
  t.equal(failed.status, 200, 'explode started')
  const approval = await call(t, app, startCall({ workflowName: 'approval', input: { label: 'x' }, webhook: { url: hooks.url('/terminated'), secret } }))
  await app.engine.client.workflow.getHandle(approval.body.workflowId).terminate('by the test')
  // The API sets no run timeout; the engine's own timeout closes this run, started with its delivery as the API starts them.
  const timedOutId = newId('timeout')
  const target = { url: hooks.url('/timed-out'), secret }
  const deliveryId = deliveryWorkflowId(timedOutId)
  await app.webhooks.startDelivery({ id: deliveryId, workflowId: timedOutId, catalog: testCatalog() }, target)
  const handle = await app.engine.client.workflow.start('approval', { workflowId: timedOutId, taskQueue: testCatalog(), args: [{ label: 't' }], workflowExecutionTimeout: '1 second', memo: webhookRunMemo(target, deliveryId) })

  const expected: Array<[string, { workflowId: string, runId: string }, string]> = [
    ['/failed', failed.body, 'failed'], ['/terminated', approval.body, 'terminated'], ['/timed-out', { workflowId: timedOutId, runId: handle.firstExecutionRunId }, 'timed_out']
  ]
  for (const [path, run, status] of expected) {
    const [delivery] = await hooks.until(path, 1)
    const payload = verified(t, secret, delivery)
    t.match(payload, { workflowId: run.workflowId, runId: run.runId, status, output: null }, status)
    t.type(payload.error, 'string', `${status}: error`)
    t.equal((await deliveryDone(app, run)).state, 'delivered')
    t.equal(hooks.received(path).length, 1, `${status}: delivered once`)
  }
  const terminated = JSON.parse(hooks.received('/terminated')[0].body)
  t.equal(terminated.error, 'Workflow run was terminated: by the test')
})

t.test('a run that continues as new delivers the WorkflowResult of the last run of its chain, once', async (t) => {
  const app = await build(t)
  const hooks = await receiver(t)
  const secret = newSecret()
  const started = await call(t, app, startCall({ workflowName: 'relay', input: { hops: 3 }, webhook: { url: hooks.url('/relay'), secret } }))
  t.equal(started.status, 200)
  const [delivery] = await hooks.until('/relay', 1)
  const payload = verified(t, secret, delivery)
  const result = await call(t, app, { method: 'GET', url: `/workflow/${started.body.workflowId as string}/result`, route: '/workflow/{id}/result' })
  t.match(result.body, { status: 'completed', input: { hops: 0 }, output: { hops: 0 } })
  t.not(result.body.runId, started.body.runId, 'the result is the last run\'s')
  sameResult(t, payload, result.body, 'the body is the last run\'s WorkflowResult')
  t.equal((await deliveryDone(app, started.body)).state, 'delivered')
  t.equal(hooks.received('/relay').length, 1, 'delivered once')
})

t.test('a receiver that answers 500 gets the same webhook-id again until it answers 2xx', async (t) => {
  const app = await build(t)
  const hooks = await receiver(t)
  const secret = newSecret()
  const started = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'Bo' }, webhook: { url: hooks.url('/flaky', [500, 503]), secret } }))
  const deliveries = await hooks.until('/flaky', 3)
  t.equal(new Set(deliveries.map((d) => d.headers['webhook-id'])).size, 1, 'one webhook-id on every attempt')
  for (const delivery of deliveries) verified(t, secret, delivery)
  const record = await deliveryDone(app, started.body)
  t.match(record, { state: 'delivered', attempts: 3, lastResponseStatus: 200 })
  t.equal(hooks.received('/flaky').length, 3)
})

t.test('a delivery that never succeeds ends as failed after SERVICE_WEBHOOK_RETRY_FOR_MS and says why', async (t) => {
  const app = await build(t, { SERVICE_WEBHOOK_RETRY_FOR_MS: '2500' })
  const hooks = await receiver(t)
  const started = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'x' }, webhook: { url: hooks.url('/down', [500, 500, 500, 500, 500, 500]), secret: newSecret() } }))
  const record = await deliveryDone(app, started.body)
  t.equal(record.state, 'failed')
  t.equal(record.lastResponseStatus, 500)
  t.equal(record.lastError, 'The receiver answered 500')
  t.equal(record.attempts, hooks.received('/down').length, 'every attempt is counted')
  t.ok(record.attempts >= 2, 'retried before giving up')
})

t.test('a run started with a webhook delivers after every API process is gone', async (t) => {
  const hooks = await receiver(t)
  const secret = newSecret()
  const first = await build(t)
  const started = await call(t, first, startCall({ workflowName: 'approval', input: { label: 'restart' }, webhook: { url: hooks.url('/restart'), secret } }))
  t.equal(started.status, 200)
  await first.close()
  // No API runs now: the run is finished and delivered by the engine and the worker alone.
  const connection = await Connection.connect({ address: engineAddress() })
  t.teardown(() => connection.close())
  const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' })
  await client.workflow.getHandle(started.body.workflowId).signal('approve', { by: 'ops' })
  const [delivery] = await hooks.until('/restart', 1)
  t.match(verified(t, secret, delivery), { workflowId: started.body.workflowId, runId: started.body.runId, status: 'completed' })
  const second = await build(t)
  t.equal((await deliveryDone(second, started.body)).state, 'delivered')
  t.equal(hooks.received('/restart').length, 1)
})

t.test('an API that stops between the delivery\'s start and the run\'s loses nothing: the delivery waits for its run', async (t) => {
  const hooks = await receiver(t)
  const secret = newSecret()
  const api = await build(t)
  const workflowId = newId('died')
  const target = { url: hooks.url('/died'), secret }
  const deliveryId = deliveryWorkflowId(workflowId)
  // The API's first engine call, then the API is gone.
  await api.webhooks.startDelivery({ id: deliveryId, workflowId, catalog: testCatalog() }, target)
  await api.close()
  // The run's start, as the API's second call makes it (it may have reached the engine before the API died): straight to the engine.
  const connection = await Connection.connect({ address: engineAddress() })
  t.teardown(() => connection.close())
  const client = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' })
  const handle = await client.workflow.start('hello', { workflowId, taskQueue: testCatalog(), args: [{ name: 'Di' }], memo: webhookRunMemo(target, deliveryId) })
  const [delivery] = await hooks.until('/died', 1)
  t.match(verified(t, secret, delivery), { workflowId, runId: handle.firstExecutionRunId, status: 'completed', output: { greeting: 'Hello, Di!' } })
  const record = await client.workflow.getHandle(deliveryId).result()
  t.equal(record.state, 'delivered')
  t.equal(hooks.received('/died').length, 1, 'delivered once')
  const later = await build(t)
  const status = await call(t, later, { method: 'GET', url: `/workflow/${workflowId}/runs/${handle.firstExecutionRunId}/status`, route: '/workflow/{id}/runs/{rid}/status' })
  t.match(status.body.webhook, { url: target.url, state: 'delivered', attempts: 1 }, 'a later API reports the delivery')

  // The API died before the run's start: no run names the delivery, which ends failed and delivers nothing.
  const orphanId = newId('orphan')
  const orphan = deliveryWorkflowId(orphanId)
  await later.webhooks.startDelivery({ id: orphan, workflowId: orphanId, catalog: testCatalog(), runStartWithinMs: 1500 }, { url: hooks.url('/orphan'), secret })
  await t.rejects(later.engine.client.workflow.getHandle(orphan).result(), { cause: { type: 'WebhookRunNeverStarted' } })
  t.equal(hooks.received('/orphan').length, 0, 'nothing delivered for a run that never started')
})

t.test('POST /workflow/run takes a webhook; a stopped (canceled) run delivers once; the secret is in no response and no log line', async (t) => {
  const stream = new PassThrough()
  let logged = ''
  stream.on('data', (chunk: Buffer) => { logged += chunk.toString() })
  const app = await buildApp({ config: loadConfig({ ...traceEnv(), TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: testCatalog(), LOG_LEVEL: 'trace' }), logStream: stream })
  t.teardown(() => app.close())
  const hooks = await receiver(t)
  const secret = newSecret()
  const bodies: string[] = []
  const send = async (request: InjectOptions) => {
    const res = await app.inject(request)
    bodies.push(JSON.stringify(res.headers), res.body)
    return res
  }

  const ran = await send({ method: 'POST', url: '/workflow/run', payload: { workflowName: 'hello', input: { name: 'Run' }, webhook: { url: hooks.url('/run'), secret } } })
  t.equal(ran.statusCode, 200)
  const result = ran.json<{ workflowId: string, runId: string, status: string }>()
  t.equal(result.status, 'completed')
  const [delivery] = await hooks.until('/run', 1)
  t.match(verified(t, secret, delivery), { workflowId: result.workflowId, runId: result.runId, status: 'completed', output: { greeting: 'Hello, Run!' } })
  t.equal((await deliveryDone(app, result)).state, 'delivered')
  t.equal(hooks.received('/run').length, 1, '/run: delivered once')

  const started = await send({ method: 'POST', url: '/workflow/start', payload: { workflowName: 'approval', input: { label: 'stop me' }, webhook: { url: hooks.url('/canceled'), secret } } })
  t.equal(started.statusCode, 200)
  const run = started.json<{ workflowId: string, runId: string }>()
  const stopped = await send({ method: 'PATCH', url: `/workflow/${run.workflowId}/stop`, payload: {} })
  t.equal(stopped.statusCode, 200)
  const [canceled] = await hooks.until('/canceled', 1)
  t.match(verified(t, secret, canceled), { workflowId: run.workflowId, runId: run.runId, status: 'canceled', output: null })
  t.equal((await deliveryDone(app, run)).state, 'delivered')
  t.equal(hooks.received('/canceled').length, 1, 'canceled: delivered once')

  for (const { workflowId, runId } of [result, run]) {
    const status = await send({ method: 'GET', url: `/workflow/${workflowId}/runs/${runId}/status` })
    t.equal(status.json<{ webhook: { state: string } }>().webhook.state, 'delivered')
    t.equal((await send({ method: 'GET', url: `/workflow/${workflowId}/runs/${runId}/result` })).statusCode, 200)
    t.equal((await send({ method: 'GET', url: `/workflow/${workflowId}/history?includePayloads=true` })).statusCode, 200)
  }
  const bare = secret.slice('whsec_'.length)
  t.ok(logged.includes(result.workflowId), 'the log was captured')
  t.notOk(logged.includes(bare), 'no log line holds the secret')
  t.notOk(bodies.some((b) => b.includes(bare)), 'no response (run, start, stop, status, result, history) holds the secret')
})

t.test('an idempotent retry with a webhook starts one run and one delivery', async (t) => {
  const app = await build(t)
  const hooks = await receiver(t)
  const secret = newSecret()
  const key = randomUUID()
  const body = { workflowName: 'hello', input: { name: 'Cy' }, webhook: { url: hooks.url('/idem'), secret } }
  const answers = await Promise.all(Array.from({ length: 5 }, async () => await call(t, app, startCall(body, { 'idempotency-key': key }))))
  t.equal(new Set(answers.map((a) => a.body.runId)).size, 1)
  await hooks.until('/idem', 1)
  await deliveryDone(app, answers[0].body)
  t.equal(hooks.received('/idem').length, 1)
  const otherUrl = await call(t, app, startCall({ ...body, webhook: { url: hooks.url('/idem-other'), secret } }, { 'idempotency-key': key }))
  t.equal(otherUrl.status, 422, 'another webhook URL is another request')
})

t.test('refused webhook URLs are a 400 before anything starts', async (t) => {
  const app = await build(t, { SERVICE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,*.example.com,169.254.169.254,[fe80::1],localhost,metadata.google.internal' })
  const secret = newSecret()
  const cases: Array<[string, unknown, string]> = [
    ['not a URL', { url: 'not a url', secret }, '/webhook/url'],
    ['ftp', { url: 'ftp://127.0.0.1/x', secret }, '/webhook/url'],
    ['file', { url: 'file:///etc/passwd', secret }, '/webhook/url'],
    ['credentials in the URL', { url: 'http://user:pw@127.0.0.1/x', secret }, '/webhook/url'],
    ['a host not allowed', { url: 'https://evil.test/x', secret }, '/webhook/url'],
    ['cloud metadata', { url: 'http://169.254.169.254/latest/meta-data', secret }, '/webhook/url'],
    ['metadata by name', { url: 'http://metadata.google.internal/', secret }, '/webhook/url'],
    ['link-local IPv6', { url: 'http://[fe80::1]/x', secret }, '/webhook/url'],
    ['a malformed secret', { url: 'https://hooks.example.com/x', secret: 'plain-text' }, '/webhook/secret'],
    ['no secret and no default', { url: 'https://hooks.example.com/x' }, '/webhook/secret']
  ]
  for (const [why, webhook, path] of cases) {
    const workflowId = newId('refused')
    const res = await call(t, app, startCall({ workflowName: 'hello', input: { name: 'x' }, workflowId, webhook }))
    t.equal(res.status, 400, why)
    t.equal(res.body.issues?.[0]?.path, path, why)
    await t.rejects(app.engine.client.workflow.getHandle(workflowId).describe(), why + ': nothing started')
  }
  const production = await build(t, { SERVICE_WEBHOOK_ALLOW_LOOPBACK: 'false', SERVICE_WEBHOOK_SECRET: secret })
  for (const url of ['http://127.0.0.1:9/x', 'http://localhost/x', 'http://[::1]/x', 'http://[::ffff:127.0.0.1]/x']) {
    const res = await call(t, production, startCall({ workflowName: 'hello', input: { name: 'x' }, webhook: { url } }))
    t.equal(res.status, 400, `loopback refused when not allowed: ${url}`)
  }
  const withDefault = await call(t, production, startCall({ workflowName: 'hello', input: { name: 'x' }, webhook: { url: 'https://hooks.example.com/x' } }))
  t.equal(withDefault.status, 200, 'the default secret stands in for a missing one')
  await waitClosed(production, withDefault.body.workflowId)
})

t.test('a malformed SERVICE_WEBHOOK_SECRET stops the start without printing it', async (t) => {
  const secret = 'not-a-standard-webhooks-secret-4711'
  const err = await rejectionOf(() => loadConfig({ SERVICE_WEBHOOK_SECRET: secret }))
  t.match(err, { name: 'ConfigError', message: /SERVICE_WEBHOOK_SECRET/ })
  t.notOk(String((err as Error).message).includes(secret), 'the message does not repeat the value')
  t.doesNotThrow(() => loadConfig({ SERVICE_WEBHOOK_SECRET: newSecret() }))
})

async function rejectionOf (fn: () => unknown): Promise<unknown> {
  try {
    fn()
  } catch (err) {
    return err
  }
  return undefined
}
