/**
 * `npm start`'s promise: one command brings up engine, object store, worker, delivery worker and API on 127.0.0.1,
 * large payloads and traces work with no setting, the API and the worker never wait for the
 * store, and SIGTERM, sent to the npm process, to the `flowport` process or to the process group,
 * stops all of it.
 */
import t, { type Test } from 'tap'
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { findObjectStoreBinary } from '../cli/object-store-binary.js'
import { descendants, killStack, startStack, status, survivors, until, type Stack } from './helpers/processes.js'

t.setTimeout(600_000)

async function ready (t: Test, stack: Stack, withStore = true): Promise<void> {
  t.teardown(() => { killStack(stack) })
  t.ok(await until(async () => await status(`${stack.base}/ready`) === 200), '/ready answers 200 once the worker published the catalog')
  t.ok(stack.find('worker') && stack.find('engine'), 'engine and worker run as child processes')
  t.ok(await until(() => stack.find('deliveries') !== undefined), 'and so does the delivery worker (declared catalogs\' webhooks: docs/webhooks.md)')
  if (withStore) t.ok(await until(() => stack.find('store') !== undefined), 'and so does the object store')
}

const STORE_LINE = /Store\s+http:\/\/127\.0\.0\.1:\d+ \(S3, bucket flowport: large payloads; data in \S+\)/

async function stopsEverything (t: Test, stack: Stack, signal: () => void): Promise<void> {
  const pids = [stack.process.pid!, ...descendants(stack.process.pid!)]
  const exited = new Promise<number | null>((done) => stack.process.once('exit', (code) => done(code)))
  signal()
  t.same(await survivors(pids), [], 'no process of the stack remains')
  // npm ends by re-raising the signal it forwarded; `flowport dev` itself exits 0.
  if (stack.process.spawnfile !== 'npm') t.equal(await exited, 0, 'exits cleanly')
}

/** An address of this machine other than loopback, if it has one. */
function externalAddress (): string | undefined {
  return Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address
}

t.test('flowport dev listens on 127.0.0.1, prints readable lines, and SIGTERM to it stops everything', async (t) => {
  const stack = await startStack('flowport', { LOG_LEVEL: 'info' })
  await ready(t, stack)
  const port = new URL(stack.base).port
  t.equal(await status(`${stack.base}/health`), 200)
  t.match(stack.output(), new RegExp(`Swagger UI\\s+http://127\\.0\\.0\\.1:${port}/docs`), 'prints the Swagger UI address')
  t.match(stack.output(), /Temporal UI\s+http:\/\/127\.0\.0\.1:\d+/, 'prints the Temporal UI address')
  t.ok(await until(() => stack.output().includes('Delivery worker polling __flowport_deliveries')), 'the delivery worker polls')
  t.match(stack.output(), new RegExp(`Inspector\\s+http://127\\.0\\.0\\.1:${port}/ui/`), 'prints the inspector\'s address')
  t.equal(await status(`${stack.base}/ui/`), 200, 'which serves the page')
  const settings = await (await fetch(`${stack.base}/ui/settings.json`)).json() as { temporalUiUrl: string | null }
  t.match(settings.temporalUiUrl, /^http:\/\/127\.0\.0\.1:\d+/, 'and knows where the embedded engine\'s UI is')
  const external = externalAddress()
  if (external) t.equal(await status(`http://${external}:${port}/health`), 0, `not reachable on ${external}`)
  else t.pass('no other interface to check')

  for (let i = 0; i < 5; i++) await status(`${stack.base}/ready`)
  await status(`${stack.base}/catalog`)
  const output = stack.output()
  t.match(output, /INFO: \[api\] Server listening at http:\/\/127\.0\.0\.1:\d+/, 'API log lines are formatted for reading')
  t.notMatch(output, /^\{"level"/m, 'no JSON log line')
  t.notMatch(output, /"url":"\/ready"|url: "\/ready"|\/ready/, 'no log line per /ready poll')
  t.match(output, /\/catalog/, 'other requests are logged')
  await stopsEverything(t, stack, () => stack.process.kill('SIGTERM'))
})

t.test('SIGTERM to the npm process stops everything', async (t) => {
  const stack = await startStack('npm')
  await ready(t, stack)
  await stopsEverything(t, stack, () => stack.process.kill('SIGTERM'))
})

t.test('SIGTERM to the process group of npm start stops everything', async (t) => {
  const stack = await startStack('npm')
  await ready(t, stack)
  await stopsEverything(t, stack, () => process.kill(-stack.process.pid!, 'SIGTERM'))
})

async function json (url: string, init: RequestInit = {}): Promise<{ status: number, body: any }> {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...init.headers }, signal: AbortSignal.timeout(60_000) })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')

t.test('with no setting the stack keeps large payloads in its own object store, which survives a restart, and traces on disk', async (t) => {
  const stack = await startStack('flowport')
  await ready(t, stack)
  t.ok(await until(() => STORE_LINE.test(stack.output())), 'the banner says where the store is')

  // An input past the inline limit (1 MiB), uploaded with the presigned URL POST /payloads hands out.
  const name = 'A'.repeat(1_200_000)
  const upload = await json(`${stack.base}/payloads`, { method: 'POST' })
  t.equal(upload.status, 200, 'POST /payloads answers')
  const put = await fetch(upload.body.uploadUrl, { method: 'PUT', body: JSON.stringify({ name }) })
  t.equal(put.status, 200, 'the upload is accepted by the store')
  const run = await json(`${stack.base}/workflow/run`, { method: 'POST', body: JSON.stringify({ workflowName: 'hello', inputRef: upload.body.payloadRef }) })
  t.equal(run.status, 200)
  t.match(run.body, { status: 'completed', output: null, outputRef: { payloadRef: /^sha256\//, url: /^http:\/\/127\.0\.0\.1:\d+\/flowport\// } }, 'the large output is answered as a link into the store')
  const expected = JSON.stringify({ greeting: `Hello, ${name}!` })
  const download = async (): Promise<string> => await (await fetch(run.body.outputRef.url)).text()
  const output = await download()
  t.equal(output.length, expected.length, 'the download has the output\'s size')
  t.equal(sha256(output), sha256(expected), 'and is the output')

  // A retried step: on one host its trace and failed attempts stay in the trace directory the API
  // reads, and cost no PUT in the bucket (issue 55).
  const flaky = await json(`${stack.base}/workflow/run`, { method: 'POST', body: JSON.stringify({ workflowName: 'flaky', input: { failures: 2 } }) })
  t.match(flaky.body, { status: 'completed' })
  let log: { status: number, body: any } | undefined
  t.ok(await until(async () => { log = await json(`${stack.base}/workflow/${flaky.body.workflowId}/trace-log`); return log.body?.source === 'local' }), 'the trace is read from the trace directory')
  const reread = await json(`${stack.base}/workflow/${flaky.body.workflowId}/result`)
  t.match(reread.body, { trace: { destinations: { local: /\S/, remote: null } } }, 'and the result names it there only')
  t.same(log!.body.trace.nodes[0].attempts.map((a: { status: string }) => a.status), ['failed', 'failed', 'completed'], 'with every attempt')
  t.ok(readdirSync(join(stack.dataDir, 's3', 'buckets', 'flowport', 'payloads', 'sha256')).length > 0, 'objects are files under the data directory')
  t.notOk(existsSync(join(stack.dataDir, 's3', 'buckets', 'flowport', 'traces')), 'and no trace is among them')

  // The store is supervised like the engine: killed, it comes back on the same port and data.
  const store = stack.find('store')!
  process.kill(store, 'SIGKILL')
  t.ok(await until(() => { const s = stack.find('store'); return s !== undefined && s !== store }), 'a new store is started')
  t.ok(await until(async () => await download() === expected), 'the stored output is still there')
  await stopsEverything(t, stack, () => stack.process.kill('SIGTERM'))
})

t.test('the API and the worker start without waiting for the store, which is attached when it runs', async (t) => {
  // A store whose binary is not there yet, as during its first build (minutes of CPU on a fresh
  // machine, and its end cannot be chosen): this stand-in exits at once until the test releases
  // it, then runs the real versitygw. Each exit is a failed start, which the stack retries.
  const real = (await findObjectStoreBinary()).path
  const dir = mkdtempSync(join(tmpdir(), 'flowport-store-later-'))
  const released = join(dir, 'released')
  const binary = join(dir, 'versitygw')
  writeFileSync(binary, `#!/bin/sh\n[ -e '${released}' ] || exit 1\nexec '${real}' "$@"\n`)
  chmodSync(binary, 0o755)
  const stack = await startStack('flowport', { VERSITYGW_PATH: binary })
  await ready(t, stack, false)
  t.notOk(stack.find('store'), 'no store runs yet')
  t.match(stack.output(), /Store\s+starting; until then POST \/payloads and large results answer 503/, 'the banner says the store is starting')

  const refused = await fetch(`${stack.base}/payloads`, { method: 'POST', signal: AbortSignal.timeout(60_000) })
  const body = await refused.json() as { error: string, message: string }
  t.equal(refused.status, 503, 'POST /payloads answers 503 meanwhile')
  t.equal(body.error, 'PayloadStorageUnavailableError')
  t.match(body.message, /object store of `npm start` is starting/, 'saying the store is starting')
  t.ok(Number(refused.headers.get('retry-after')) > 0, 'with Retry-After')
  const large = await json(`${stack.base}/workflow/run`, { method: 'POST', body: JSON.stringify({ workflowName: 'hello', input: { name: 'A'.repeat(300_000) } }) })
  t.match(large, { status: 503, body: { error: 'PayloadStorageUnavailableError', message: /is starting/ } }, 'so does a start whose input goes to the store')
  const small = await json(`${stack.base}/workflow/run`, { method: 'POST', body: JSON.stringify({ workflowName: 'hello', input: { name: 'Ada' } }) })
  t.match(small.body, { status: 'completed', output: { greeting: 'Hello, Ada!' } }, 'runs work')
  t.match(small.body.trace?.destinations, { local: /\S/ }, 'and their traces stay local')

  writeFileSync(released, '')
  t.ok(await until(() => /\[dev\] store attached after .*:\n {2}Store\s+http/.test(stack.output())), 'once the store runs, the log says it is attached, with its Store line')
  t.ok(stack.find('store'), 'the store runs')
  const upload = await json(`${stack.base}/payloads`, { method: 'POST' })
  t.equal(upload.status, 200, 'POST /payloads answers 200')
  const put = await fetch(upload.body.uploadUrl, { method: 'PUT', body: JSON.stringify({ name: 'Ada' }) })
  t.equal(put.status, 200, 'and the upload is accepted by the store')
  const run = await json(`${stack.base}/workflow/run`, { method: 'POST', body: JSON.stringify({ workflowName: 'hello', inputRef: upload.body.payloadRef }) })
  t.match(run.body, { status: 'completed', output: { greeting: 'Hello, Ada!' } }, 'a run reads it')
  await stopsEverything(t, stack, () => stack.process.kill('SIGTERM'))
})
