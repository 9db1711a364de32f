/**
 * A real S3-compatible server for the tests: moto's server mode, from PyPI (pip --target into the
 * Flowport cache, as the engine launcher gets the temporal CLI). Chosen over MinIO because it
 * installs in under a minute with the Python every machine here has, where MinIO must be compiled
 * from the Go module proxy; s3rver is unmaintained. It speaks S3's REST protocol over HTTP, so the
 * SDK's real requests, signatures and errors are exercised; stopping it is a real outage.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3'
import { cacheDir } from '../../cli/temporal-binary.js'
import { freePort } from '../../cli/engine.js'

const MOTO_VERSION = '5.2.5'
const target = () => join(cacheDir(), `moto-${MOTO_VERSION}`)

export interface S3Server {
  endpoint: string
  process: ChildProcess
  stop: () => Promise<void>
}

/** Installs moto once per cache; a failed install fails the run (tests never skip for want of it). */
async function installMoto (log: (m: string) => void): Promise<void> {
  if (existsSync(join(target(), 'moto', 'server.py'))) return
  log(`Installing moto[server]==${MOTO_VERSION} from PyPI into ${target()} …`)
  await promisify(execFile)('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', target(),
    `moto[server]==${MOTO_VERSION}`], { timeout: 600_000 })
}

export async function startS3Server (log: (m: string) => void = () => {}): Promise<S3Server> {
  await installMoto(log)
  const port = await freePort()
  const child = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], {
    env: { ...process.env, PYTHONPATH: target() },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let output = ''
  child.stderr?.on('data', (chunk: Buffer) => { output = (output + chunk.toString()).slice(-4000) })
  const endpoint = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto exited with code ${child.exitCode}:\n${output}`)
    const up = await fetch(`${endpoint}/`).then((r) => r.ok, () => false)
    if (up) break
    if (Date.now() > deadline) throw new Error(`moto did not answer on ${endpoint} within 60 s:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  const stop = async () => {
    if (child.exitCode !== null) return
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  }
  return { endpoint, process: child, stop }
}

/** Credentials moto accepts (any); the same the worker and the API get in the tests. */
export const S3_TEST_CREDENTIALS = { SERVICE_CLOUD_ACCESS_KEY_ID: 'flowport-test', SERVICE_CLOUD_SECRET_ACCESS_KEY: 'flowport-test-secret', SERVICE_CLOUD_REGION: 'us-east-1' }

export async function createBucket (endpoint: string, bucket: string): Promise<void> {
  const client = new S3Client({
    endpoint,
    forcePathStyle: true,
    region: S3_TEST_CREDENTIALS.SERVICE_CLOUD_REGION,
    credentials: { accessKeyId: S3_TEST_CREDENTIALS.SERVICE_CLOUD_ACCESS_KEY_ID, secretAccessKey: S3_TEST_CREDENTIALS.SERVICE_CLOUD_SECRET_ACCESS_KEY }
  })
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }))
  } finally {
    client.destroy()
  }
}
