/**
 * Who did what: the key is the engine's `identity` on every call that changes a run (the run's own
 * history shows who started, signalled, updated, stopped or terminated it), and each such call is
 * one structured log line, refused calls included.
 */
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { traceEnv } from './helpers/app.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { bearer, keysFile } from './helpers/keys.js'
import { eventually, firstTaskCompleted, waitClosed } from './helpers/workflows.js'

t.test('the key is the engine identity of each change, and one audit line records it', async (t) => {
  const fixture = keysFile(t, [{ id: 'ci', scopes: ['run', 'read'] }, { id: 'operator', scopes: ['read', 'interact', 'control'] }])
  const lines: string[] = []
  const config = loadConfig({ ...traceEnv(), TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: testCatalog(), SERVICE_API_KEYS_FILE: fixture.file, LOG_LEVEL: 'info' })
  const app = await buildApp({ config, logger: { level: 'info', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => app.close())
  const as = async (id: string, method: 'POST' | 'PATCH', url: string, payload: object = {}) =>
    await app.inject({ method, url, headers: bearer(fixture.keys[id]!), payload })

  const first = (await as('ci', 'POST', '/workflow/start', { workflowName: 'approval', input: { label: 'a' } })).json()
  t.equal((await as('operator', 'POST', `/workflow/${first.workflowId}/update/relabel`, { payload: { label: 'b' } })).statusCode, 200)
  t.equal((await as('operator', 'POST', `/workflow/${first.workflowId}/signal/approve`, { payload: { by: 'op' } })).statusCode, 200)
  t.equal(await waitClosed(app, first.workflowId), 'COMPLETED')
  const second = (await as('ci', 'POST', '/workflow/start', { workflowName: 'approval', input: { label: 'c' } })).json()
  t.equal((await as('ci', 'POST', `/workflow/${second.workflowId}/terminate`)).statusCode, 403)
  t.equal((await as('operator', 'PATCH', `/workflow/${second.workflowId}/stop`)).statusCode, 200)
  t.equal((await as('operator', 'POST', `/workflow/${second.workflowId}/terminate`, { reason: 'cleanup hung' })).statusCode !== 403, true)
  await waitClosed(app, second.workflowId)

  const identities = async (workflowId: string) => {
    const history = await app.engine.client.workflow.getHandle(workflowId).fetchHistory()
    return (history.events ?? []).flatMap((e) => {
      const identity = e.workflowExecutionStartedEventAttributes?.identity ?? e.workflowExecutionSignaledEventAttributes?.identity ??
        e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.identity ?? e.workflowExecutionCancelRequestedEventAttributes?.identity ??
        e.workflowExecutionTerminatedEventAttributes?.identity
      return identity ? [identity] : []
    })
  }
  t.same(await identities(first.workflowId), ['flowport:ci', 'flowport:operator', 'flowport:operator'], 'started by ci; updated and signalled by operator')
  const page = await app.inject({ method: 'GET', url: `/workflow/${first.workflowId}/history?pageSize=1`, headers: bearer(fixture.keys.operator!) })
  t.equal(page.json().events[0].workflowExecutionStartedEventAttributes.identity, 'flowport:ci', 'the API\'s history shows who started the run')
  const secondIds = await identities(second.workflowId)
  t.equal(secondIds[0], 'flowport:ci')
  t.ok(secondIds.slice(1).length >= 1 && secondIds.slice(1).every((i) => i === 'flowport:operator'), `stopped (and terminated) by operator: ${secondIds.join(', ')}`)

  // The status, the runs listing and the trace name the starting key (from the run's memo).
  const read = async (url: string) => (await app.inject({ method: 'GET', url, headers: bearer(fixture.keys.operator!) })).json()
  t.equal((await read(`/workflow/${first.workflowId}/status`)).startedBy, 'ci', 'the status names the key that started the run')
  t.equal((await read(`/workflow/${first.workflowId}/runs/${first.runId}/status`)).startedBy, 'ci', 'and so does the pinned status (a closed run, kept in memory)')
  t.equal((await read(`/workflow/${first.workflowId}/trace-log`)).trace.workflow.startedBy, 'ci', 'the trace names it too')
  let listed: { startedBy?: string } | undefined
  for (let i = 0; i < 50 && listed === undefined; i++) {
    listed = (await read('/workflow/runs?workflowName=approval&pageSize=1000')).runs.find((r: { workflowId: string }) => r.workflowId === first.workflowId)
    if (listed === undefined) await new Promise((done) => setTimeout(done, 100))
  }
  t.equal(listed?.startedBy, 'ci', 'the runs listing names it')
  const chain = (await as('ci', 'POST', '/workflow/start', { workflowName: 'relay', input: { hops: 1 } })).json()
  await waitClosed(app, chain.workflowId)
  const continued = await read(`/workflow/${chain.workflowId}/status`)
  t.not(continued.runId, chain.runId, 'the chain continued as new')
  t.equal(continued.startedBy, 'ci', 'a run continued as new keeps the starter (the engine carries the memo over)')

  const audit = lines.map((l) => JSON.parse(l)).filter((l) => l.audit === true)
    .map(({ keyId, via, action, workflowId, runId, outcome }) => ({ keyId, via, action, workflowId, runId, outcome }))
  t.same(audit.slice(0, 5), [
    { keyId: 'ci', via: 'key', action: 'startWorkflow', workflowId: first.workflowId, runId: first.runId, outcome: '200' },
    { keyId: 'operator', via: 'key', action: 'updateWorkflow', workflowId: first.workflowId, runId: first.runId, outcome: '200' },
    { keyId: 'operator', via: 'key', action: 'signalWorkflow', workflowId: first.workflowId, runId: first.runId, outcome: '200' },
    { keyId: 'ci', via: 'key', action: 'startWorkflow', workflowId: second.workflowId, runId: second.runId, outcome: '200' },
    { keyId: 'ci', via: 'key', action: 'terminateWorkflow', workflowId: second.workflowId, runId: null, outcome: '403 ForbiddenError' }
  ])
  t.match(audit[5], { keyId: 'operator', action: 'stopWorkflow', workflowId: second.workflowId, runId: second.runId, outcome: '200' })
  t.notOk(lines.some((l) => l.includes('"audit":true') && l.includes('"action":"getWorkflowStatus"')), 'reads are not audit lines')
})

t.test('reset, batch and schedule changes: the engine\'s record where it keeps the caller, the audit line always', async (t) => {
  const fixture = keysFile(t, [{ id: 'ci', scopes: ['run', 'read'] }, { id: 'operator', scopes: ['read', 'interact', 'control'] }])
  const lines: string[] = []
  const config = loadConfig({ ...traceEnv(), TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: testCatalog(), SERVICE_API_KEYS_FILE: fixture.file, LOG_LEVEL: 'info' })
  const app = await buildApp({ config, logger: { level: 'info', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => app.close())
  const as = async (id: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) => {
    const res = await app.inject({ method, url, headers: bearer(fixture.keys[id]!), ...(payload ? { payload } : {}) })
    return { status: res.statusCode, body: res.body === '' ? undefined : res.json() }
  }
  const audit = () => lines.map((l) => JSON.parse(l)).filter((l) => l.audit === true)
    .map(({ keyId, via, action, workflowId, runId, outcome }) => ({ keyId, via, action, workflowId, runId, outcome }))
  const prefix = `audit-${randomUUID()}-`

  // Reset: the engine records its own resetter as the identity of the old run's termination and of
  // the new run's reset event, whatever the request's identity: the audit line is the record.
  const reset = (await as('ci', 'POST', '/workflow/start', { workflowName: 'approval', input: { label: 'r' }, workflowId: `${prefix}reset` })).body
  t.ok(await firstTaskCompleted(app, reset.workflowId, reset.runId), 'the run has completed a workflow task')
  const resetRes = await as('operator', 'POST', `/workflow/${reset.workflowId}/reset`, { from: 'start', reason: 'audit' })
  t.equal(resetRes.status, 200, 'the operator resets')
  t.teardown(async () => { await app.engine.client.workflow.getHandle(reset.workflowId).terminate('test over').catch(() => undefined) })
  t.same(audit().filter((l) => l.action === 'resetWorkflow'),
    [{ keyId: 'operator', via: 'key', action: 'resetWorkflow', workflowId: reset.workflowId, runId: resetRes.body.runId, outcome: '200' }], 'one audit line names the key, the id and the new run')

  // Batch terminate: the engine keeps the key as the batch operation's identity (each run's
  // termination event names the engine's own batcher, which acts for it).
  const batchIds = [`${prefix}b0`, `${prefix}b1`]
  for (const workflowId of batchIds) t.equal((await as('ci', 'POST', '/workflow/start', { workflowName: 'approval', input: { label: 'b' }, workflowId })).status, 200)
  const query = `WorkflowId STARTS_WITH "${prefix}b" AND ExecutionStatus = "Running"`
  await eventually(async () => Number((await app.engine.client.workflowService.countWorkflowExecutions({ namespace: app.config.TEMPORAL_NAMESPACE, query })).count), (c) => c === batchIds.length)
  const batch = await as('operator', 'POST', '/workflow/batch', { action: 'terminate', filter: { query }, reason: 'audit batch' })
  t.equal(batch.status, 202, 'the operator starts a batch terminate')
  const done = await eventually(async () => (await as('operator', 'GET', `/workflow/batch/${batch.body.batchId as string}`)).body, (b) => b.state !== 'running', 240)
  t.match(done, { state: 'completed', completed: batchIds.length })
  for (const workflowId of batchIds) t.equal(await waitClosed(app, workflowId), 'TERMINATED')
  const described = await app.engine.client.workflowService.describeBatchOperation({ namespace: app.config.TEMPORAL_NAMESPACE, jobId: batch.body.batchId })
  t.equal(described.identity, 'flowport:operator', 'the engine\'s batch operation names the key')
  t.same(audit().filter((l) => l.action === 'startBatch'), [{ keyId: 'operator', via: 'key', action: 'startBatch', workflowId: null, runId: null, outcome: '202' }])

  // Schedules: no run's history records who changed a schedule (its runs are started by the
  // engine's scheduler): the audit lines are the record.
  const scheduleId = `${prefix}sched`
  t.teardown(async () => { await app.engine.client.schedule.getHandle(scheduleId).delete().catch(() => undefined) })
  t.equal((await as('operator', 'POST', '/schedules', { scheduleId, workflowName: 'hello', input: { name: 'Ada' }, spec: { every: [{ interval: '1h' }] } })).status, 201)
  t.equal((await as('operator', 'POST', `/schedules/${scheduleId}/pause`, { note: 'audit' })).status, 204)
  t.equal((await as('operator', 'POST', `/schedules/${scheduleId}/trigger`, {})).status, 204)
  t.equal((await as('ci', 'POST', `/schedules/${scheduleId}/unpause`, {})).status, 403, 'ci may not change schedules')
  t.equal((await as('operator', 'DELETE', `/schedules/${scheduleId}`)).status, 204)
  t.same(audit().filter((l) => /Schedule$/.test(l.action)).map(({ keyId, action, outcome }) => ({ keyId, action, outcome })), [
    { keyId: 'operator', action: 'createSchedule', outcome: '201' },
    { keyId: 'operator', action: 'pauseSchedule', outcome: '204' },
    { keyId: 'operator', action: 'triggerSchedule', outcome: '204' },
    { keyId: 'ci', action: 'unpauseSchedule', outcome: '403 ForbiddenError' },
    { keyId: 'operator', action: 'deleteSchedule', outcome: '204' }
  ], 'each schedule change is one audit line naming the key')
})
