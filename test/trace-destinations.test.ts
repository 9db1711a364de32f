/**
 * A result names the bucket as its trace's destination only once the trace is there: not while
 * the worker has not written it (or its write failed), not while the bucket hangs (its process
 * stopped with SIGSTOP: the answer comes after a HEAD's short deadline, without the bucket), and
 * from the first read after it was written. A bucket of the test's own (moto) that no worker
 * writes to: the test writes the trace object itself, as the worker's keeper would.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { traceKey } from '@flowport/core/trace'
import { build } from './helpers/app.js'
import { createBucket, S3_TEST_CREDENTIALS, startS3Server } from './helpers/s3-server.js'
import { call, newId } from './helpers/workflows.js'

t.test('trace.destinations.remote is null until the trace is in the bucket (also while the bucket hangs), then named', async (t) => {
  const store = await startS3Server()
  t.teardown(async () => {
    store.process.kill('SIGCONT')
    await store.stop()
  })
  const bucket = `destinations-${randomUUID()}`
  await createBucket(store.endpoint, bucket)
  const app = await build(t, { SERVICE_CLOUD_ENDPOINT: store.endpoint, SERVICE_TRACE_S3_BUCKET: bucket, SERVICE_PAYLOAD_REFS_ENABLED: 'false' })
  // A closed run of the Flowport worker's catalog (a queue with no catalog has no trace file at all), whose trace no worker writes to this bucket.
  const handle = await app.engine.client.workflow.start('hello', { taskQueue: app.config.SERVICE_CATALOG_ID, workflowId: newId('destinations'), args: [{ name: 'Ada' }] })
  await handle.terminate('closed for the test')
  const runId = (await handle.describe()).runId
  const result = async () => await call(t, app, { method: 'GET', url: `/workflow/${handle.workflowId}/result`, route: '/workflow/{id}/result' })

  const unwritten = await result()
  t.equal(unwritten.status, 200)
  t.match(unwritten.body, { status: 'terminated', trace: { destinations: { remote: null } } }, 'not written: the bucket is not named')

  store.process.kill('SIGSTOP')
  const hanging = await result()
  t.equal(hanging.status, 200, 'a bucket that hangs does not hold up the result')
  t.match(hanging.body, { trace: { destinations: { remote: null } } }, 'and is not named')
  store.process.kill('SIGCONT')

  const client = new S3Client({
    endpoint: store.endpoint,
    forcePathStyle: true,
    region: S3_TEST_CREDENTIALS.SERVICE_CLOUD_REGION,
    credentials: { accessKeyId: S3_TEST_CREDENTIALS.SERVICE_CLOUD_ACCESS_KEY_ID, secretAccessKey: S3_TEST_CREDENTIALS.SERVICE_CLOUD_SECRET_ACCESS_KEY }
  })
  t.teardown(() => { client.destroy() })
  const key = `traces/${traceKey(handle.workflowId, runId)}`
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: '{}', ContentType: 'application/json' }))
  const written = await result()
  t.match(written.body, { trace: { destinations: { remote: `s3://${bucket}/${key}` } } }, 'written: named')
})
