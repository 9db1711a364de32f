/**
 * The API's log lines about a run carry workflowId and runId next to the request id: reads of a
 * run (ids from the path), a start (ids from the answer) and an error about a run.
 */
import t from 'tap'
import { PassThrough } from 'node:stream'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { traceEnv } from './helpers/app.js'
import { engineAddress, testCatalog } from './helpers/env.js'
import { newId } from './helpers/workflows.js'

interface Line { msg: string, reqId: string, workflowId?: string, runId?: string }

t.test('completion lines name the run a request was about', async (t) => {
  const stream = new PassThrough()
  const lines: Line[] = []
  stream.on('data', (chunk: Buffer) => { for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line) })
  const app = await buildApp({
    config: loadConfig({ ...traceEnv(), TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: testCatalog(), LOG_LEVEL: 'info' }),
    logStream: stream
  })
  t.teardown(() => app.close())
  const completion = (reqId: string) => lines.find((l) => l.reqId === reqId && l.msg === 'request completed')

  const workflowId = newId('logged')
  const started = await app.inject({ method: 'POST', url: '/workflow/start', payload: { workflowName: 'hello', input: { name: 'log' }, workflowId } })
  t.equal(started.statusCode, 200)
  const { runId } = started.json<{ runId: string }>()
  t.match(completion(String(started.headers['x-request-id'])), { workflowId, runId }, 'a start: ids from the answer')

  const status = await app.inject({ method: 'GET', url: `/workflow/${workflowId}/runs/${runId}/status` })
  t.equal(status.statusCode, 200)
  const line = completion(String(status.headers['x-request-id']))
  t.match(line, { workflowId, runId }, 'a pinned read: ids from the path')
  t.equal(JSON.stringify(line).split('"workflowId"').length, 2, 'bound once')

  const missing = newId('missing')
  const notFound = await app.inject({ method: 'GET', url: `/workflow/${missing}/result` })
  t.equal(notFound.statusCode, 404)
  t.match(completion(String(notFound.headers['x-request-id'])), { workflowId: missing }, 'an error about a run')

  const health = await app.inject({ method: 'GET', url: '/workflow/runs?pageSize=1' })
  t.equal(health.statusCode, 200)
  t.notOk(completion(String(health.headers['x-request-id']))?.workflowId, 'a request about no run carries no id')
})
