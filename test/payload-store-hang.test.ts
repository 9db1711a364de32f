/**
 * A payload store that hangs (its process stopped with SIGSTOP: connections are accepted by the
 * kernel, nothing answers): `GET …/result` of a run whose input is held by reference and
 * `POST /payloads` answer 503 PayloadStorageUnavailableError with Retry-After after the store's
 * own short deadline, not after a minute, and the calls after it at once, for a few seconds; no
 * upload URL is handed out for a store that cannot take the upload. Once the store answers again,
 * both work. A store of the test's own (moto), so the
 * shared one stays untouched.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { build } from './helpers/app.js'
import { createBucket, startS3Server } from './helpers/s3-server.js'
import { call, newId } from './helpers/workflows.js'

t.test('a stopped store: the result of a large run and POST /payloads are 503 PayloadStorageUnavailableError with Retry-After, naming the deadline; both work again once it answers', async (t) => {
  const store = await startS3Server()
  t.teardown(async () => {
    store.process.kill('SIGCONT')
    await store.stop()
  })
  const bucket = `hang-${randomUUID()}`
  await createBucket(store.endpoint, bucket)
  const app = await build(t, {
    SERVICE_CLOUD_ENDPOINT: store.endpoint,
    SERVICE_TRACE_S3_BUCKET: bucket,
    SERVICE_PAYLOAD_REF_THRESHOLD_BYTES: '1024',
    SERVICE_PAYLOAD_INLINE_MAX_BYTES: '1024'
  })
  // A run whose input the API's codec stored by reference (no worker: it is terminated at once).
  const input = { text: 'x'.repeat(4096) }
  const handle = await app.engine.client.workflow.start('hello', { taskQueue: `hang-${randomUUID()}`, workflowId: newId('large'), args: [input] })
  await handle.terminate('closed for the test')
  const result = async () => await call(t, app, { method: 'GET', url: `/workflow/${handle.workflowId}/result`, route: '/workflow/{id}/result' })
  const upload = async () => await call(t, app, { method: 'POST', url: '/payloads', route: '/payloads' })

  store.process.kill('SIGSTOP')
  const first = await result()
  t.equal(first.status, 503)
  t.match(first.body, { error: 'PayloadStorageUnavailableError', message: /did not answer within 2000 ms/ })
  t.ok(Number(first.headers['retry-after']) > 0, `Retry-After: ${first.headers['retry-after']}`)
  // Remembered: the next calls do not wait out the deadline again, and say so.
  for (const res of [await upload(), await result()]) {
    t.equal(res.status, 503)
    t.match(res.body, { error: 'PayloadStorageUnavailableError', message: /did not answer within 2000 ms \(\d+\.\d s ago; the store is asked again 5 s after a failure\)/ })
    t.ok(Number(res.headers['retry-after']) > 0, `Retry-After: ${res.headers['retry-after']}`)
  }

  store.process.kill('SIGCONT')
  // As a client does: Retry-After, then again.
  const retried = async (ask: typeof result) => {
    for (;;) {
      const res = await ask()
      if (res.status !== 503) return res
      await sleep(Number(res.headers['retry-after']) * 1000)
    }
  }
  const answered = await retried(result)
  t.equal(answered.status, 200, 'the result once the store answers')
  t.match(answered.body, { status: 'terminated', input: null, inputRef: { bytes: Number, url: String } }, 'the input as a presigned download')
  const issued = await retried(upload)
  t.equal(issued.status, 200, 'an upload URL once the store answers')
})
