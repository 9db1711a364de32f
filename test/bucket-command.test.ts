/**
 * `flowport bucket`, what deploy/'s one-shot service and init containers run: it creates the bucket
 * SERVICE_TRACE_S3_BUCKET names in a real S3-compatible store (the harness's), an existing bucket
 * is fine, the store's keys may be `credential:` references, and a missing setting, a reference that
 * cannot be resolved or a store that never answers is exit 1 with one line saying why.
 */
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { credentialsLocation, generateKey, writeCredentials } from '@flowport/core/credentials'
import { bucketCommand } from '../cli/bucket.js'
import { flowport } from './helpers/flowport-cli.js'

const endpoint = process.env.FLOWPORT_TEST_S3_ENDPOINT!

t.test('creates the bucket, and again is fine', async (t) => {
  const bucket = `created-${randomUUID().slice(0, 8)}`
  const env = { SERVICE_TRACE_S3_BUCKET: bucket, SERVICE_CLOUD_ENDPOINT: endpoint }
  const first = await flowport(['bucket'], { env })
  t.equal(first.code, 0, first.stderr)
  t.match(first.stdout, `Bucket s3://${bucket} at ${endpoint} is ready`)
  const client = new S3Client({
    endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: process.env.SERVICE_CLOUD_ACCESS_KEY_ID!, secretAccessKey: process.env.SERVICE_CLOUD_SECRET_ACCESS_KEY! }
  })
  t.teardown(() => { client.destroy() })
  await t.resolves(client.send(new HeadBucketCommand({ Bucket: bucket })), 'the store has it')
  t.equal((await flowport(['bucket'], { env })).code, 0, 'a second run finds it and succeeds')
})

t.test('no bucket named, or a store that never answers: exit 1 with the reason', async (t) => {
  const lines: string[] = []
  const error = console.error
  console.error = (line: string) => { lines.push(line) }
  t.teardown(() => { console.error = error })
  t.equal(await bucketCommand({}), 1)
  t.same(lines, ['flowport bucket: SERVICE_TRACE_S3_BUCKET is not set (the bucket to create)'])
  lines.length = 0
  t.equal(await bucketCommand({ SERVICE_TRACE_S3_BUCKET: 'b', SERVICE_CLOUD_ENDPOINT: 'http://127.0.0.1:9', SERVICE_CLOUD_ACCESS_KEY_ID: 'k', SERVICE_CLOUD_SECRET_ACCESS_KEY: 's' }, 0), 1)
  t.match(lines, [/^flowport bucket: could not create s3:\/\/b at http:\/\/127\.0\.0\.1:9: /])
})

t.test('the store\'s keys as credential: references are resolved from the credentials file, as the API resolves them', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowport-bucket-credentials-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const key = generateKey()
  const opened = { NODE_ENV: 'staging', SERVICE_CREDENTIALS_FILE: join(dir, 'staging.yml.enc'), SERVICE_CREDENTIALS_KEY_STAGING: key }
  writeCredentials(credentialsLocation(opened), Buffer.from(key, 'hex'),
    `store:\n  access_key: ${process.env.SERVICE_CLOUD_ACCESS_KEY_ID!}\n  secret_key: ${process.env.SERVICE_CLOUD_SECRET_ACCESS_KEY!}\n`)
  const bucket = `credentialed-${randomUUID().slice(0, 8)}`
  const env = {
    ...opened,
    SERVICE_TRACE_S3_BUCKET: bucket,
    SERVICE_CLOUD_ENDPOINT: endpoint,
    SERVICE_CLOUD_ACCESS_KEY_ID: 'credential:store.access_key',
    SERVICE_CLOUD_SECRET_ACCESS_KEY: 'credential:store.secret_key'
  }
  const made = await flowport(['bucket'], { env })
  t.equal(made.code, 0, made.stderr)
  t.match(made.stdout, `Bucket s3://${bucket} at ${endpoint} is ready`)

  const missing = await flowport(['bucket'], { env: { ...env, SERVICE_CLOUD_SECRET_ACCESS_KEY: 'credential:store.nothing_here' } })
  t.equal(missing.code, 1)
  t.match(missing.stderr, /^flowport bucket: \w+Error: SERVICE_CLOUD_SECRET_ACCESS_KEY=credential:store\.nothing_here: no value at store\.nothing_here/)
  t.notMatch(missing.stderr, process.env.SERVICE_CLOUD_SECRET_ACCESS_KEY!, 'never a value')
})
