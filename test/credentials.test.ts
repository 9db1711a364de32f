/**
 * Encrypted credentials end to end on the real engine: the file made with `flowport credentials`,
 * a worker of this test's own resolving a `credential:` setting at start, a step reading both
 * through a run of `POST /workflow/run`, a missing path failing the run without retries, the
 * worker refusing to start on each missing or unreadable piece, and the planted secrets appearing
 * nowhere Flowport writes or answers.
 */
import t, { type Test } from 'tap'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import protoRoot from '@temporalio/proto'
import { catalogWorkflowId } from '@flowport/core/contract'
import { buildApp, type App } from '../app.js'
import { loadConfig } from '../plugins/external/config/index.js'
import { credentialsCli, printedKey } from './helpers/credentials-cli.js'
import { traceEnv } from './helpers/app.js'
import { engineAddress } from './helpers/env.js'
import { engineClient } from './helpers/history.js'
import { spawnWorker } from './helpers/worker-process.js'

const KEY_VARIABLE = 'SERVICE_CREDENTIALS_KEY_STAGING'
const FIXTURES = resolve('test/fixtures/workflows/credentials')
/** Planted secrets: random, so a match anywhere can only come from this test's file. */
const API_KEY = `planted-api-key-${randomBytes(12).toString('hex')}`
const WEBHOOK_SECRET = `planted-webhook-${randomBytes(12).toString('hex')}`
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

interface Stash { dir: string, file: string, key: string }

/** An encrypted file for environment `staging` made with the CLI: init, then both secrets through stdin. */
async function makeStash (t: Test): Promise<Stash> {
  const dir = t.testdir({})
  const init = await credentialsCli(['init', '--env', 'staging'], { cwd: dir, env: { [KEY_VARIABLE]: '' } })
  t.equal(init.code, 0, init.stderr)
  const key = printedKey(init.stdout, KEY_VARIABLE)
  for (const [path, value] of [['service.api_key', API_KEY], ['service.webhook_secret', WEBHOOK_SECRET]]) {
    const set = await credentialsCli(['set', path, '--env', 'staging'], { cwd: dir, env: { [KEY_VARIABLE]: key }, stdin: `${value}\n` })
    t.equal(set.code, 0, set.stderr)
  }
  return { dir, file: join(dir, 'config/credentials/staging.yml.enc'), key }
}

const workerEnv = (stash: Stash, extra: Record<string, string> = {}) => ({
  TEMPORAL_ADDRESS: engineAddress(),
  NODE_ENV: 'staging',
  [KEY_VARIABLE]: stash.key,
  SERVICE_CATALOG_ID: `credentials-${randomUUID()}`,
  SERVICE_WORKFLOWS_DIR: FIXTURES,
  FIXTURE_API_KEY: 'credential:service.api_key',
  ...extra
})

async function appWithLog (t: Test, catalog: string): Promise<{ app: App, log: () => string }> {
  const lines: string[] = []
  const config = loadConfig({ ...traceEnv(), TEMPORAL_ADDRESS: engineAddress(), SERVICE_CATALOG_ID: catalog, LOG_LEVEL: 'trace' })
  const app = await buildApp({ config, logger: { level: 'trace', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => app.close())
  return { app, log: () => lines.join('') }
}

t.test('the worker refuses to start on a missing file, key or path, a wrong or malformed key, or a modified file', async (t) => {
  const stash = await makeStash(t)
  const otherKey = randomBytes(32).toString('hex')
  const tampered = join(stash.dir, 'tampered.yml.enc')
  const [header, body] = readFileSync(stash.file, 'utf8').split('\n')
  const bytes = Buffer.from(body, 'base64')
  bytes[20] ^= 1
  writeFileSync(tampered, `${header}\n${bytes.toString('base64')}\n`)
  const missingFile = join(stash.dir, 'nowhere.yml.enc')
  const cases: Array<[string, Record<string, string>, string]> = [
    ['missing file', { SERVICE_CREDENTIALS_FILE: missingFile },
      `MissingCredentialError: FIXTURE_API_KEY=credential:service.api_key: no credentials file at ${missingFile} (environment staging; SERVICE_CREDENTIALS_FILE overrides the location)`],
    ['missing key', { [KEY_VARIABLE]: '' },
      `MissingCredentialError: FIXTURE_API_KEY=credential:service.api_key: ${KEY_VARIABLE} is not set (it holds the key of ${stash.file})`],
    ['missing path', { FIXTURE_API_KEY: 'credential:service.nowhere' },
      `MissingCredentialError: FIXTURE_API_KEY=credential:service.nowhere: no value at service.nowhere in ${stash.file}`],
    ['wrong key', { [KEY_VARIABLE]: otherKey },
      `WrongCredentialsKeyError: ${KEY_VARIABLE} does not open ${stash.file}: the file was encrypted with another key`],
    ['malformed key', { [KEY_VARIABLE]: `${stash.key}00` },
      `MalformedCredentialsKeyError: ${KEY_VARIABLE} must be 64 hexadecimal characters (a 32-byte key); it holds 66 characters`],
    ['modified file', { SERVICE_CREDENTIALS_FILE: tampered },
      `TamperedCredentialsError: ${tampered} is not a credentials file or was modified since it was written (it failed its integrity check); restore it from version control`]
  ]
  await Promise.all(cases.map(async ([what, env, message]) => {
    const worker = spawnWorker(t, workerEnv(stash, env), stash.dir)
    t.equal(await worker.exited, 1, `${what}: exit code 1`)
    t.equal(worker.output().trim(), `[flowport] error: ${message}`, `${what}: one line naming the variable and the path`)
    for (const secret of [API_KEY, WEBHOOK_SECRET, stash.key, otherKey]) t.notOk(worker.output().includes(secret), `${what}: no secret or key printed`)
  }))
})

t.test('every bad reference of one start is named in one line, by variable name', async (t) => {
  const stash = await makeStash(t)
  const worker = spawnWorker(t, workerEnv(stash, { FIXTURE_API_KEY: 'credential:service.nowhere', A_SETTING: 'credential:service', B_SETTING: 'credential:service..x' }), stash.dir)
  t.equal(await worker.exited, 1)
  t.equal(worker.output().trim(), '[flowport] error: CredentialsError: ' + [
    'A_SETTING=credential:service: The credential path service holds a mapping, not a single value; address one of its values',
    'B_SETTING=credential:service..x: Invalid credential path "service..x": expected dot-separated names such as service.api_key',
    `FIXTURE_API_KEY=credential:service.nowhere: no value at service.nowhere in ${stash.file}`
  ].join('; '))
})

/**
 * Every place Flowport writes to or answers from during the runs of this test, by name, the runs'
 * execution traces (as the worker stored them in the bucket) included.
 */
async function placesToSearch (t: Test, app: App, catalog: string, runs: Array<{ workflowId: string, runId: string, response: unknown }>, logs: Record<string, string>): Promise<Record<string, Buffer>> {
  const places: Record<string, Buffer> = {}
  for (const [name, text] of Object.entries(logs)) places[`log: ${name}`] = Buffer.from(text)
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
    places[`GET ${url}`] = Buffer.from(res.body)
  }
  await get('/workflow/catalog')
  const client = await engineClient(t)
  for (const { workflowId, runId, response } of runs) {
    places[`POST /workflow/run (${workflowId})`] = Buffer.from(JSON.stringify(response))
    await get(`/workflow/${workflowId}/status`)
    await get(`/workflow/${workflowId}/runs/${runId}/result`)
    await get(`/workflow/${workflowId}/runs/${runId}/history?includePayloads=true`)
    const url = `/workflow/${workflowId}/runs/${runId}/trace-log`
    let trace = await app.inject({ method: 'GET', url })
    for (let i = 0; i < 120 && trace.json().source !== 'remote'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      trace = await app.inject({ method: 'GET', url })
    }
    t.equal(trace.json().source, 'remote', `${url}: the stored trace`)
    places[`GET ${url}`] = Buffer.from(trace.body)
    places[`engine history of ${workflowId}`] = Buffer.from(protoRoot.temporal.api.history.v1.History.encode(await client.workflow.getHandle(workflowId, runId).fetchHistory()).finish())
  }
  const catalogHistory = await client.workflow.getHandle(catalogWorkflowId(catalog)).fetchHistory()
  places['engine history of the catalog workflow'] = Buffer.from(protoRoot.temporal.api.history.v1.History.encode(catalogHistory).finish())
  return places
}

t.test('a step reads a credential: setting and a credential by path through POST /workflow/run; a missing path fails once; no secret leaks', async (t) => {
  const stash = await makeStash(t)
  const env = workerEnv(stash)
  const worker = spawnWorker(t, env, stash.dir)
  await worker.waitFor(`Worker polling catalog ${env.SERVICE_CATALOG_ID}`)
  t.match(worker.output(), `Credentials of environment staging read from ${stash.file}; resolved FIXTURE_API_KEY`)
  const { app, log } = await appWithLog(t, env.SERVICE_CATALOG_ID)

  const run = async (path: string) => {
    const workflowId = `credentialed-${randomUUID()}`
    const res = await app.inject({ method: 'POST', url: '/workflow/run', payload: { workflowName: 'credentialed', workflowId, input: { path } } })
    t.equal(res.statusCode, 200)
    const body = res.json()
    return { workflowId, runId: body.runId as string, response: body }
  }
  const read = await run('service.webhook_secret')
  t.match(read.response, { status: 'completed', output: { settingSha256: sha256(API_KEY), requiredSha256: sha256(WEBHOOK_SECRET) } }, 'the step saw both secrets')

  const missing = await run('service.nowhere')
  t.match(missing.response, {
    status: 'failed',
    errorDetails: {
      name: 'MissingCredentialError',
      message: `Required credential service.nowhere not found: no value at service.nowhere in ${stash.file}`,
      retryable: false,
      activityId: 'credentialed#readSecrets'
    }
  })
  const client = await engineClient(t)
  const history = await client.workflow.getHandle(missing.workflowId, missing.runId).fetchHistory()
  const attempts = (history.events ?? []).flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt] : []))
  t.same(attempts, [1], 'the step ran once: a missing credential is not retried')

  const places = await placesToSearch(t, app, env.SERVICE_CATALOG_ID, [read, missing], { worker: worker.output(), api: log() })
  t.ok(Object.keys(places).length >= 12, 'the places were collected')
  t.match(places['engine history of the catalog workflow'].toString(), 'credentialed', 'the catalog history is the one of this worker')
  for (const [place, content] of Object.entries(places)) {
    for (const [name, secret] of Object.entries({ API_KEY, WEBHOOK_SECRET, key: stash.key })) {
      t.notOk(content.includes(secret), `${place}: no ${name}`)
    }
  }
})
