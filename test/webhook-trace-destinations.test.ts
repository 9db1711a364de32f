/**
 * A webhook's body names the bucket as its trace's destination only once the trace is there, as a
 * result does (test/trace-destinations.test.ts): the worker's await activity (the one that builds
 * the body when the run closes) run in the SDK's activity environment, against the real engine and
 * a bucket of the test's own (moto) that no worker writes to; the test writes the trace object as
 * the worker's keeper would.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3'
import { MockActivityEnvironment } from '@temporalio/testing'
import { WEBHOOK_AWAIT_ACTIVITY } from '@flowport/core/contract'
import { TraceStore, traceKey, traceSettingsFrom } from '@flowport/core/trace'
import { webhookActivities } from '../worker/src/webhook/activities.js'
import type { AwaitRequest } from '../worker/src/workflow/webhook.js'
import { build } from './helpers/app.js'
import { createBucket, S3_TEST_CREDENTIALS, startS3Server } from './helpers/s3-server.js'
import { newId } from './helpers/workflows.js'

interface Body { kind: string, trace: { destinations: { local: string | null, remote: string | null } } | null }

t.test('the webhook body names trace.destinations.remote only once the trace is in the bucket', async (t) => {
  const s3 = await startS3Server()
  t.teardown(async () => { await s3.stop() })
  const bucket = `webhook-destinations-${randomUUID()}`
  await createBucket(s3.endpoint, bucket)
  const app = await build(t, { SERVICE_CLOUD_ENDPOINT: s3.endpoint, SERVICE_TRACE_S3_BUCKET: bucket, SERVICE_PAYLOAD_REFS_ENABLED: 'false' })
  const store = new TraceStore(traceSettingsFrom(app.config)!)
  const activity = webhookActivities({ client: app.engine.client, store })[WEBHOOK_AWAIT_ACTIVITY] as (request: AwaitRequest) => Promise<unknown>
  // A closed run whose trace no worker writes here (no worker polls its task queue).
  const handle = await app.engine.client.workflow.start('hello', { taskQueue: `webhook-destinations-${randomUUID()}`, workflowId: newId('webhook-destinations'), args: [{ name: 'Ada' }] })
  await handle.terminate('closed for the test')
  const request: AwaitRequest = { workflowId: handle.workflowId, runId: handle.firstExecutionRunId, deliveryId: randomUUID(), runStartDeadline: Date.now() + 60_000 }
  const body = async (): Promise<Body> => await new MockActivityEnvironment().run(activity as (request: AwaitRequest) => Promise<Body>, request)

  const unwritten = await body()
  t.match(unwritten, { kind: 'result', trace: { destinations: { remote: null } } }, 'not written: the bucket is not named')

  const client = new S3Client({
    endpoint: s3.endpoint,
    forcePathStyle: true,
    region: S3_TEST_CREDENTIALS.SERVICE_CLOUD_REGION,
    credentials: { accessKeyId: S3_TEST_CREDENTIALS.SERVICE_CLOUD_ACCESS_KEY_ID, secretAccessKey: S3_TEST_CREDENTIALS.SERVICE_CLOUD_SECRET_ACCESS_KEY }
  })
  t.teardown(() => { client.destroy() })
  const key = `traces/${traceKey(handle.workflowId, handle.firstExecutionRunId)}`
  await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: '{}', ContentType: 'application/json' }))
  t.match(await body(), { trace: { destinations: { remote: `s3://${bucket}/${key}` } } }, 'written: named')
})
