/**
 * The object store of `npm start` and `npm run cluster`: versitygw (cli/object-store-binary.ts)
 * serving S3 on a loopback port from a data directory (`buckets/`: one folder per bucket, one file
 * per object; `meta/`: object metadata as sidecar files, so the store needs no extended attributes
 * from the file system), with the bucket created. Its `settings` are what the API and every worker
 * need to keep traces and large payloads there (docs/traces.md and docs/large-payloads.md).
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from './engine.js'
import { ownServer } from './supervise.js'
import { findObjectStoreBinary } from './object-store-binary.js'
import { ensureBucket } from './bucket.js'

/** The one bucket: traces under `traces/`, payloads under `payloads/` (the settings' default prefixes). */
export const STORE_BUCKET = 'flowport'
const REGION = 'us-east-1'

export interface StoreCredentials { accessKeyId: string, secretAccessKey: string }

export interface ObjectStoreOptions {
  dataDir: string
  /** Preferred port; a free one is chosen when it is taken, unless `strictPort`. */
  port?: number
  strictPort?: boolean
  /** The address it listens on: loopback unless the stack's HOST is another (clients elsewhere upload to it). */
  host?: string
  /** The root user's keys; random ones by default (the data does not depend on them). */
  credentials?: StoreCredentials
  log?: (message: string) => void
  /** Ends a first build of the binary (cli/go-install.ts) when the stack stops during it. */
  signal?: AbortSignal
}

export type ObjectStore = Awaited<ReturnType<typeof startObjectStore>>

/**
 * versitygw's arguments: S3 on `listen`, a health route, and the posix backend on `dataDir`.
 * deploy/docker-compose.yml and deploy/kubernetes/flowport.yaml run the same (test/deploy.test.ts).
 */
export const storeServerArgs = (listen: string, dataDir: string): string[] =>
  ['--port', listen, '--health', '/health', '--region', REGION, 'posix', '--sidecar', `${dataDir}/meta`, `${dataDir}/buckets`]

/** `host` as an address with a port after it: an IPv6 one in brackets. */
const listenAddress = (host: string): string => (host.includes(':') ? `[${host}]` : host)

/** Whether `host` is a loopback name or address, reached only from this machine. */
export const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || host.startsWith('127.')

/** The settings that name a bucket of the user's own: then no store is started for them. */
export const hasOwnBucket = (env: NodeJS.ProcessEnv): boolean => (env.SERVICE_TRACE_S3_BUCKET ?? '') !== ''

export const newStoreCredentials = (): StoreCredentials =>
  ({ accessKeyId: `flowport-${randomBytes(6).toString('hex')}`, secretAccessKey: randomBytes(24).toString('base64url') })

/**
 * SERVICE_TRACE_S3_BUCKET and SERVICE_CLOUD_*: what the API and the workers need to keep traces and
 * large payloads in the store on `port` with `credentials`; known before the store runs.
 */
export function storeSettings (port: number, credentials: StoreCredentials): Record<string, string> {
  return {
    SERVICE_TRACE_S3_BUCKET: STORE_BUCKET,
    SERVICE_CLOUD_ENDPOINT: `http://127.0.0.1:${port}`,
    SERVICE_CLOUD_REGION: REGION,
    SERVICE_CLOUD_ACCESS_KEY_ID: credentials.accessKeyId,
    SERVICE_CLOUD_SECRET_ACCESS_KEY: credentials.secretAccessKey
  }
}

export async function startObjectStore (opts: ObjectStoreOptions) {
  const log = opts.log ?? (() => {})
  const binary = await findObjectStoreBinary(log, opts.signal)
  for (const dir of ['buckets', 'meta']) mkdirSync(join(opts.dataDir, dir), { recursive: true })
  const port = await freePort(opts.port ?? 0, opts.strictPort)
  const credentials = opts.credentials ?? newStoreCredentials()
  // Keys through the environment, not the command line, where `ps` would show them.
  const child = spawn(binary.path, storeServerArgs(`${listenAddress(opts.host ?? '127.0.0.1')}:${port}`, opts.dataDir), {
    env: { ...process.env, ROOT_ACCESS_KEY: credentials.accessKeyId, ROOT_SECRET_KEY: credentials.secretAccessKey },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true
  })
  const server = ownServer(child, 'versitygw')
  const endpoint = `http://127.0.0.1:${port}`
  await server.untilServing(async () => (await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(2000) })).ok, 30_000)
  try {
    await ensureBucket({ bucket: STORE_BUCKET, endpoint, region: REGION, ...credentials })
  } catch (err) {
    await server.stop()
    throw err
  }
  const settings = storeSettings(port, credentials)
  return { endpoint, port, dataDir: opts.dataDir, credentials, settings, process: child, stop: server.stop }
}
