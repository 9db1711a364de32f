/**
 * Who did what: the key is the engine's `identity` on every call that changes a run (the run's own
 * history shows who started, signalled, updated, stopped or terminated it), and each such call is
 * one structured log line, refused calls included.
 */
import t from 'tap'
import { buildApp } from '../app.js'
import { loadConfig } from '../schemas/config.js'
import { traceEnv } from './helpers/app.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { bearer, keysFile } from './helpers/keys.js'
import { waitClosed } from './helpers/workflows.js'

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
    const history = await app.temporal.workflow.getHandle(workflowId).fetchHistory()
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
