/**
 * `flowport bucket`: creates the bucket SERVICE_TRACE_S3_BUCKET names, with the SERVICE_CLOUD_*
 * settings the API and the worker use (`credential:<path>` references resolved like theirs); one that
 * exists already is fine. deploy/docker-compose.yml
 * runs it as a one-shot service and deploy/kubernetes/flowport.yaml as an init container, before
 * any API replica or worker starts; `npm start` and `npm run cluster` create theirs the same way
 * (cli/object-store.ts).
 */
import { BucketAlreadyExists, BucketAlreadyOwnedByYou, CreateBucketCommand, S3Client } from '@aws-sdk/client-s3'
import { CredentialsError, resolveCredentialReferences } from '@flowport/core/credentials'

export interface BucketTarget {
  bucket: string
  endpoint?: string
  region: string
  accessKeyId?: string
  secretAccessKey?: string
}

/** Creates the bucket; one that exists (a restart on the same data, maybe created with other keys) is fine. */
export async function ensureBucket ({ bucket, endpoint, region, accessKeyId, secretAccessKey }: BucketTarget): Promise<void> {
  const client = new S3Client({
    endpoint,
    region,
    forcePathStyle: endpoint !== undefined,
    credentials: accessKeyId !== undefined && secretAccessKey !== undefined ? { accessKeyId, secretAccessKey } : undefined
  })
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }))
  } catch (err) {
    if (!(err instanceof BucketAlreadyOwnedByYou || err instanceof BucketAlreadyExists)) throw err
  } finally {
    client.destroy()
  }
}

/** The settings the command reads; a `credential:<path>` among them is resolved as the API and the worker resolve it. */
const SETTINGS = ['SERVICE_TRACE_S3_BUCKET', 'SERVICE_CLOUD_ENDPOINT', 'SERVICE_CLOUD_REGION', 'SERVICE_CLOUD_ACCESS_KEY_ID', 'SERVICE_CLOUD_SECRET_ACCESS_KEY'] as const

/** The command: retried for `waitMs`, since the store may start at the same time as this. Returns the exit code. */
export async function bucketCommand (processEnv: NodeJS.ProcessEnv, waitMs = 60_000): Promise<number> {
  const env: Record<string, string | undefined> = Object.fromEntries(SETTINGS.map((name) => [name, processEnv[name]]))
  try {
    resolveCredentialReferences(env, processEnv)
  } catch (err) {
    if (!(err instanceof CredentialsError)) throw err
    console.error(`flowport bucket: ${err.name}: ${err.message}`)
    return 1
  }
  const bucket = env.SERVICE_TRACE_S3_BUCKET
  if (bucket === undefined || bucket === '') {
    console.error('flowport bucket: SERVICE_TRACE_S3_BUCKET is not set (the bucket to create)')
    return 1
  }
  const target = {
    bucket,
    endpoint: env.SERVICE_CLOUD_ENDPOINT || undefined,
    region: env.SERVICE_CLOUD_REGION || 'us-east-1',
    accessKeyId: env.SERVICE_CLOUD_ACCESS_KEY_ID || undefined,
    secretAccessKey: env.SERVICE_CLOUD_SECRET_ACCESS_KEY || undefined
  }
  const where = `s3://${bucket}${target.endpoint === undefined ? '' : ` at ${target.endpoint}`}`
  const deadline = Date.now() + waitMs
  for (;;) {
    try {
      await ensureBucket(target)
      console.log(`Bucket ${where} is ready`)
      return 0
    } catch (err) {
      const reason = `${(err as Error).name}: ${(err as Error).message}`
      if (Date.now() >= deadline) {
        console.error(`flowport bucket: could not create ${where}: ${reason}`)
        return 1
      }
      console.log(`Bucket ${where} not created yet (${reason}); trying again`)
      await new Promise((resolve) => setTimeout(resolve, 2000))
    }
  }
}
