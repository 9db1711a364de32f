/**
 * Large payloads by reference (docs/large-payloads.md), end to end: the API and the shared test
 * worker both load the claim-check codec with the real S3-compatible server (moto) that
 * scripts/test.ts starts; the engine is the real one. A 20 MB input is uploaded through a presigned
 * URL and started with `inputRef`, and a 20 MB output comes back as a presigned download, byte for
 * byte; the engine's history, read with a client without the codec, holds references only. Objects
 * deleted from the bucket behind the API's back are 404s, not 500s or dead links.
 */
import t, { type Test } from 'tap'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @temporalio/proto is CommonJS: its named exports are not visible to ESM.
import protoRoot from '@temporalio/proto'
import type { temporal } from '@temporalio/proto'
import type { App } from '../app.js'
import { build } from './helpers/app.js'
import { engineClient, openSse } from './helpers/history.js'
import { call, newId } from './helpers/workflows.js'
import { catalogArgs, flowport, listening } from './helpers/flowport-cli.js'
import { FlowportClient } from '@flowport/client'
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3'

const MB = 1024 * 1024
const REFERENCE_KEY = 'flowport-payload-ref'

interface Link { payloadRef: string, bytes: number, sha256: string, url: string, expiresAt: string }
interface Result { workflowId: string, runId: string, status: string, input: unknown, output: unknown, inputRef?: Link, outputRef?: Link }

let app: App
t.before(async () => { app = await build(t) })

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex')

/** POST /payloads, then the PUT a client does with the presigned URL. */
async function upload (t: Test, app: App, body: string): Promise<string> {
  const res = await call(t, app, { method: 'POST', url: '/payloads', route: '/payloads' })
  t.equal(res.status, 200, 'an upload is issued')
  const { payloadRef, uploadUrl, method } = res.body as { payloadRef: string, uploadUrl: string, method: string }
  t.match(payloadRef, /^uploads\/[0-9a-f-]{36}$/)
  const put = await fetch(uploadUrl, { method, body })
  t.equal(put.status, 200, `the presigned ${method} stores ${body.length} bytes`)
  return payloadRef
}

async function run (t: Test, app: App, body: Record<string, unknown>) {
  return await call(t, app, { method: 'POST', url: '/workflow/run', route: '/workflow/run', payload: { workflowName: 'bulky', workflowId: newId('bulky'), timeout: 240_000, ...body } })
}

/** Every payload of a history (the raw protobuf objects), wherever it sits in an event. */
function payloadsOf (value: unknown, found: temporal.api.common.v1.IPayload[] = []): temporal.api.common.v1.IPayload[] {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return found
  const record = value as Record<string, unknown>
  if ('metadata' in record && 'data' in record && ArrayBuffer.isView(record.data)) found.push(record as temporal.api.common.v1.IPayload)
  else for (const v of Object.values(record)) payloadsOf(v, found)
  return found
}

const isReference = (p: temporal.api.common.v1.IPayload) => p.metadata?.[REFERENCE_KEY] !== undefined

async function download (t: Test, link: Link): Promise<Buffer> {
  t.ok(Date.parse(link.expiresAt) > Date.now(), 'the link has not expired')
  const res = await fetch(link.url)
  t.equal(res.status, 200, 'the presigned download answers')
  const data = Buffer.from(await res.arrayBuffer())
  t.equal(data.length, link.bytes, 'as many bytes as the link says')
  t.equal(sha256(data), link.sha256, 'the SHA-256 the link says')
  return data
}

t.test('a 20 MB input by inputRef and a 20 MB result round-trip byte for byte; the engine holds references only', async (t) => {
  // Random text, so that no two parts of it are alike: a byte out of place shows.
  const text = randomBytes(15 * MB).toString('base64')
  // `direct`: the workflow returns the output itself (a step's large input and result are covered below).
  const inputJson = JSON.stringify({ text, direct: true })
  t.ok(inputJson.length >= 20 * MB, 'the input is 20 MB')
  const payloadRef = await upload(t, app, inputJson)

  const res = await run(t, app, { inputRef: payloadRef })
  t.equal(res.status, 200, 'ran')
  const result = res.body as Result
  t.equal(result.status, 'completed')
  t.equal(result.output, null, 'the output is not inline')
  t.equal(result.input, null, 'the input is not inline')
  t.match(result.outputRef, { payloadRef: /^sha256\/[0-9a-f]{64}$/, bytes: JSON.stringify({ text }).length })
  const output = await download(t, result.outputRef!)
  t.ok(output.equals(Buffer.from(JSON.stringify({ text }))), 'the output is the workflow\'s value, byte for byte')
  t.ok((await download(t, result.inputRef!)).equals(Buffer.from(inputJson)), 'the input is the uploaded one, byte for byte')

  const read = await call(t, app, { method: 'GET', url: `/workflow/${result.workflowId}/result`, route: '/workflow/{id}/result' })
  t.equal(read.status, 200)
  t.equal((read.body as Result).outputRef?.payloadRef, result.outputRef!.payloadRef, 'GET …/result links to the same object')
  t.ok((await download(t, (read.body as Result).outputRef!)).equals(output))
  const input = await call(t, app, { method: 'GET', url: `/workflow/${result.workflowId}/input`, route: '/workflow/{id}/input' })
  t.equal(input.status, 200)
  t.match(input.body, { input: null, inputRef: { payloadRef: result.inputRef!.payloadRef } }, 'GET …/input links to the input')

  // The engine's own record, read with a client that has no codec.
  const client = await engineClient(t)
  const history = await client.workflow.getHandle(result.workflowId, result.runId).fetchHistory()
  const size = protoRoot.temporal.api.history.v1.History.encode(history).finish().length
  t.ok(size < 64 * 1024, `the whole history is small (${size} bytes)`)
  const references = payloadsOf(history.events).filter(isReference)
  t.equal(references.length, 2, 'the start input and the output are references')
  const started = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]
  t.ok(isReference(started), 'the start input is a reference')
  t.match(JSON.parse(Buffer.from(started.data!).toString()), { payloadRef: result.inputRef!.payloadRef, bytes: inputJson.length, sha256: sha256(inputJson) })

  // History and SSE show the reference, not the 20 MB.
  const page = await call(t, app, { method: 'GET', url: `/workflow/${result.workflowId}/history?includePayloads=true&pageSize=1000`, route: '/workflow/{id}/history' })
  t.equal(page.status, 200)
  const pageText = JSON.stringify(page.body)
  t.ok(pageText.length < 64 * 1024, `the history page is small (${pageText.length} characters)`)
  t.ok(pageText.includes(result.outputRef!.payloadRef), 'it shows the output\'s reference')
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const sse = await openSse(`${base}/workflow/${result.workflowId}/history/stream?includePayloads=true`)
  const streamed = await sse.body()
  t.ok(streamed.length < 64 * 1024, `the stream is small (${streamed.length} characters)`)
  t.ok(streamed.includes(result.inputRef!.payloadRef) && streamed.includes(result.outputRef!.payloadRef), 'it shows the references')
})

t.test('small payloads are unchanged: inline in the answer and in the engine\'s history', async (t) => {
  const res = await run(t, app, { input: { text: 'ab', times: 3 } })
  t.equal(res.status, 200)
  const result = res.body as Result
  t.match(result, { status: 'completed', input: { text: 'ab', times: 3 }, output: { text: 'ababab' } })
  t.notOk('outputRef' in result || 'inputRef' in result, 'no links')
  const history = await (await engineClient(t)).workflow.getHandle(result.workflowId, result.runId).fetchHistory()
  const payloads = payloadsOf(history.events)
  t.ok(payloads.length >= 4, 'the run has payloads')
  t.same(payloads.filter(isReference), [], 'none of them is a reference')
  t.equal(Buffer.from(history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0].data!).toString(), JSON.stringify({ text: 'ab', times: 3 }))
})

t.test('a value kept by reference but within SERVICE_PAYLOAD_INLINE_MAX_BYTES is answered inline', async (t) => {
  const res = await run(t, app, { input: { text: 'xyz', times: 150_000 } })
  t.equal(res.status, 200)
  const result = res.body as Result
  t.equal(result.status, 'completed')
  t.equal((result.output as { text: string }).text, 'xyz'.repeat(150_000), 'the 450 KB output, fetched by the API')
  t.notOk('outputRef' in result)
  const history = await (await engineClient(t)).workflow.getHandle(result.workflowId, result.runId).fetchHistory()
  const completed = history.events!.at(-1)!.workflowExecutionCompletedEventAttributes!.result!.payloads![0]
  t.ok(isReference(completed), 'above SERVICE_PAYLOAD_REF_THRESHOLD_BYTES (256 KiB) the engine holds a reference')
})

t.test('a missing, expired, malformed or invalid uploaded input is a clear 4xx', async (t) => {
  const missing = await run(t, app, { inputRef: `uploads/${randomUUID()}` })
  t.equal(missing.status, 404)
  t.match(missing.body, { error: 'PayloadNotFoundError', message: /uploads\/.+ is not in the payload store/ })

  const both = await run(t, app, { input: { text: 'a' }, inputRef: `uploads/${randomUUID()}` })
  t.equal(both.status, 400)
  t.match(both.body, { error: 'ValidationError', issues: [{ path: '/inputRef', message: /not be sent with input/ }] })
  const neither = await run(t, app, {})
  t.equal(neither.status, 400)
  t.match(neither.body, { error: 'ValidationError', issues: [{ path: '/input' }] })

  const notJson = await run(t, app, { inputRef: await upload(t, app, '{"text": ') })
  t.equal(notJson.status, 400)
  t.match(notJson.body, { error: 'ValidationError', issues: [{ path: '/inputRef', message: /not JSON/ }] })
  const deep = await run(t, app, { inputRef: await upload(t, app, `{"text": "x", "times": ${'['.repeat(100)}${']'.repeat(100)}}`) })
  t.equal(deep.status, 400, 'an upload gets the checks of a request body')
  t.match(deep.body, { error: 'ValidationError', issues: [{ path: '/inputRef', message: /more than 64 levels deep/ }] })
  const invalid = await run(t, app, { inputRef: await upload(t, app, '{"text": 5}') })
  t.equal(invalid.status, 400, 'the uploaded input is checked against the catalog\'s inputSchema')
  t.match(invalid.body, { error: 'ValidationError', issues: [{ in: 'input', path: '/text' }] })

  const shortLived = await build(t, { SERVICE_PAYLOAD_UPLOAD_TTL_S: '1' })
  const old = await upload(t, shortLived, JSON.stringify({ text: 'late' }))
  // The store keeps upload times in whole seconds: 2.5 s is surely more than the 1 s allowed.
  await new Promise((resolve) => setTimeout(resolve, 2500))
  const expired = await run(t, shortLived, { inputRef: old })
  t.equal(expired.status, 404)
  t.match(expired.body, { error: 'PayloadNotFoundError', message: /has expired/ })
})

/** Removes a stored payload behind the API's back, as a bucket lifecycle rule would. */
async function deleteStored (app: App, payloadRef: string): Promise<void> {
  const { bucket, prefix, region, endpoint, accessKeyId, secretAccessKey } = app.payloads.store!.settings.s3
  const s3 = new S3Client({ region, endpoint, forcePathStyle: true, credentials: { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey! } })
  try {
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: prefix + payloadRef }))
  } finally {
    s3.destroy()
  }
}

t.test('a value the engine references but the bucket no longer holds is a 404 PayloadNotFoundError, inline or linked', async (t) => {
  // Unique text: objects are content-addressed, and this test deletes them.
  const text = `${randomUUID()} `.repeat(8000)
  const input = { text, times: 1 }
  t.ok(JSON.stringify(input).length > 256 * 1024, 'above SERVICE_PAYLOAD_REF_THRESHOLD_BYTES: the input and the output are held by reference')
  const started = await call(t, app, { method: 'POST', url: '/workflow/start', route: '/workflow/start', payload: { workflowName: 'bulky', workflowId: newId('bulky'), input } })
  t.equal(started.status, 200)
  const { workflowId } = started.body as { workflowId: string }
  // Waited for through the engine, so that no API app has read (and kept, plugins/app/runs/closed-runs.ts) the run's values yet.
  await app.engine.client.workflow.getHandle(workflowId).result()
  const events = (await (await engineClient(t)).workflow.getHandle(workflowId).fetchHistory()).events!
  const refOf = (payload: temporal.api.common.v1.IPayload) => (JSON.parse(Buffer.from(payload.data!).toString()) as { payloadRef: string }).payloadRef
  const inputRef = refOf(events[0].workflowExecutionStartedEventAttributes!.input!.payloads![0])
  const outputRef = refOf(events.at(-1)!.workflowExecutionCompletedEventAttributes!.result!.payloads![0])

  await deleteStored(app, outputRef)
  // Fresh apps: nothing read before the deletion is kept in memory. `linking` answers the values as links.
  const inline = await build(t)
  const linking = await build(t, { SERVICE_PAYLOAD_INLINE_MAX_BYTES: String(64 * 1024) })
  for (const [name, reader] of [['inline', inline], ['linked', linking]] as const) {
    const result = await call(t, reader, { method: 'GET', url: `/workflow/${workflowId}/result`, route: '/workflow/{id}/result' })
    t.equal(result.status, 404, `${name}: a result whose output is gone is a 404`)
    t.match(result.body, { error: 'PayloadNotFoundError', message: new RegExp(`Payload ${outputRef} is not in the payload store`) })
    const stillThere = await call(t, reader, { method: 'GET', url: `/workflow/${workflowId}/input`, route: '/workflow/{id}/input' })
    t.equal(stillThere.status, 200, `${name}: the input is still there`)
  }

  await deleteStored(app, inputRef)
  for (const [name, env] of [['inline', {}], ['linked', { SERVICE_PAYLOAD_INLINE_MAX_BYTES: String(64 * 1024) }]] as const) {
    const reader = await build(t, env)
    const read = await call(t, reader, { method: 'GET', url: `/workflow/${workflowId}/input`, route: '/workflow/{id}/input' })
    t.equal(read.status, 404, `${name}: an input that is gone is a 404`)
    t.match(read.body, { error: 'PayloadNotFoundError', message: new RegExp(`Payload ${inputRef} is not in the payload store`) })
  }
})

t.test('without an object store large payloads are off, and say so', async (t) => {
  const off = await build(t, { SERVICE_PAYLOAD_REFS_ENABLED: 'false' })
  t.equal(off.payloads.store, null)
  const res = await call(t, off, { method: 'POST', url: '/payloads', route: '/payloads' })
  t.equal(res.status, 404)
  t.match(res.body, { error: 'PayloadStorageNotConfiguredError', message: /no object store is configured/ })
  const started = await run(t, off, { inputRef: `uploads/${randomUUID()}` })
  t.equal(started.status, 404)
  t.match(started.body, { error: 'PayloadStorageNotConfiguredError' })
  const small = await run(t, off, { input: { text: 'still', times: 2 } })
  t.match(small.body, { status: 'completed', output: { text: 'stillstill' } }, 'small payloads run as before')
})

t.test('SERVICE_CLOUD_PUBLIC_ENDPOINT: presigned URLs name the address clients reach, and work there', async (t) => {
  // The API reaches the store at 127.0.0.1 (its SERVICE_CLOUD_ENDPOINT, as a pod reaches the store's
  // Service); clients are told another name of the same store, as they would be told an Ingress.
  const inCluster = new URL(process.env.SERVICE_CLOUD_ENDPOINT!)
  t.equal(inCluster.hostname, '127.0.0.1', 'the test store is reached at 127.0.0.1')
  const publicEndpoint = `http://localhost:${inCluster.port}`
  const plain = await call(t, app, { method: 'POST', url: '/payloads', route: '/payloads' })
  t.equal(new URL((plain.body as { uploadUrl: string }).uploadUrl).host, inCluster.host, 'unset: the URL names SERVICE_CLOUD_ENDPOINT')

  const outside = await build(t, { SERVICE_CLOUD_PUBLIC_ENDPOINT: publicEndpoint, SERVICE_PAYLOAD_INLINE_MAX_BYTES: '0' })
  const res = await call(t, outside, { method: 'POST', url: '/payloads', route: '/payloads' })
  t.equal(res.status, 200)
  const { payloadRef, uploadUrl } = res.body as { payloadRef: string, uploadUrl: string }
  t.equal(new URL(uploadUrl).host, `localhost:${inCluster.port}`, 'the upload URL names the public host')
  const text = 'public'.repeat(10)
  const put = await fetch(uploadUrl, { method: 'PUT', body: JSON.stringify({ text, times: 5000 }) })
  t.equal(put.status, 200, 'the upload through the public host is stored')
  const started = await run(t, outside, { inputRef: payloadRef })
  t.equal(started.status, 200, 'and starts a run, which the API reads through its own endpoint')
  const result = started.body as Result
  t.equal(result.status, 'completed')
  t.ok(result.outputRef, 'the output above the threshold comes as a link')
  t.equal(new URL(result.outputRef!.url).host, `localhost:${inCluster.port}`, 'the download URL names the public host')
  t.equal(JSON.parse((await download(t, result.outputRef!)).toString()).text, text.repeat(5000), 'and downloads the output')
})

t.test('SERVICE_CLOUD_PUBLIC_ENDPOINT must be an http(s) address', async (t) => {
  await t.rejects(build(t, { SERVICE_CLOUD_PUBLIC_ENDPOINT: 's3.example.com' }), { name: 'ConfigError', message: /SERVICE_CLOUD_PUBLIC_ENDPOINT/ })
})

t.test('POST /payloads is in the OpenAPI document with its errors', async (t) => {
  const res = await app.inject({ method: 'GET', url: '/openapi.json' })
  const operation = res.json().paths['/payloads'].post
  t.equal(operation.operationId, 'createPayloadUpload')
  for (const status of ['200', '401', '403', '404', '429', '500', '503']) t.ok(status in operation.responses, `${status} is documented`)
  t.equal(operation.responses['200'].content['application/json'].schema.$ref, '#/components/schemas/PayloadUpload')
  t.match(operation.security, [{ bearerAuth: ['run'] }], 'it needs a key with the run scope')
})

t.test('the client and the CLI upload an input above the body limit, and hand back a large output by its URL', async (t) => {
  const { url } = await listening(t)
  const text = randomBytes(2 * MB).toString('base64')
  t.ok(JSON.stringify({ text }).length > 2 * MB, 'above SERVICE_BODY_LIMIT_BYTES (2 MiB)')
  const client = new FlowportClient({ baseUrl: url })
  const inputRef = await client.uploadInput({ text })
  t.match(inputRef, /^uploads\//)
  const result = await client.run('bulky', null, { inputRef, timeout: 120_000 })
  t.equal(result.status, 'completed')
  t.ok((await download(t, result.outputRef!)).equals(Buffer.from(JSON.stringify({ text }))), 'the output, byte for byte')
  const history = await (await engineClient(t)).workflow.getHandle(result.workflowId, result.runId).fetchHistory()
  const scheduled = history.events!.find((e) => e.activityTaskScheduledEventAttributes)!.activityTaskScheduledEventAttributes!.input!.payloads![0]
  const completed = history.events!.find((e) => e.activityTaskCompletedEventAttributes)!.activityTaskCompletedEventAttributes!.result!.payloads![0]
  t.ok(isReference(scheduled) && isReference(completed), 'the step\'s input and result are references in the engine\'s history')

  const dir = mkdtempSync(join(tmpdir(), 'flowport-large-'))
  writeFileSync(join(dir, 'input.json'), JSON.stringify({ text, times: 1 }))
  const run = await flowport(['run', 'bulky', '@input.json', '--upload', '--no-progress', ...catalogArgs()], { env: { FLOWPORT_URL: url }, cwd: dir })
  t.equal(run.code, 0, run.stderr)
  const link = run.stdout.trim()
  t.match(link, /^http/, 'stdout is the output\'s presigned URL')
  t.equal(await (await fetch(link)).text(), JSON.stringify({ text }), 'which holds the output')
})
