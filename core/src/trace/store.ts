/**
 * The trace destinations: a local directory and, when a bucket is set, S3-compatible storage
 * (@aws-sdk/client-s3). Both hold the same keys (layout.ts). Local files are written to a
 * temporary name and renamed, so a reader never sees half a document.
 */
import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { randomUUID } from 'node:crypto'
import type { S3Client } from '@aws-sdk/client-s3'
import { loadS3Sdk, s3Client, type S3Sdk } from '../s3.js'
import { attemptKey, attemptsKey, pendingKey, traceKey } from './layout.js'
import type { AttemptRecord, Trace } from './schema.js'
import type { TraceSettings } from './settings.js'

/** Storage answered with an error or not at all (not: the object does not exist). */
export class TraceStorageError extends Error {
  override name = 'TraceStorageError'
}

/** One storage call may take this long; the SDK retries once within it. */
const S3_TIMEOUT_MS = 5000

export interface Destinations { local: string | null, remote: string | null }

export class TraceStore {
  private s3: S3Client | null = null
  /** False once `checkLocalDir` found the directory unwritable: it is then neither named nor written nor read. */
  private localUsable = true

  constructor (readonly settings: TraceSettings) {}

  /**
   * Whether this process can write the local directory (made when missing; a file written and
   * removed). If not, the directory is left out from then on, so no result names a file that is
   * never written, and the answer is the one line to log (the image once defaulted to a directory
   * its user could not write, and every write failed, only logged).
   */
  async checkLocalDir (): Promise<string | null> {
    const probe = join(this.settings.dir, `.write-check-${randomUUID()}`)
    try {
      await mkdir(this.settings.dir, { recursive: true })
      await writeFile(probe, '')
      await rm(probe, { force: true })
      return null
    } catch (err) {
      this.localUsable = false
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message
      return `SERVICE_TRACE_DIR=${this.settings.dir} cannot be written (${why}): ${this.hasRemote ? 'traces are kept in the bucket only' : 'no trace is kept'}; set SERVICE_TRACE_DIR to a directory this process can write`
    }
  }

  /** Where the trace of a run is kept (whether or not it is written yet). */
  destinations (workflowId: string, runId: string): Destinations {
    const key = traceKey(workflowId, runId)
    const s3 = this.settings.s3
    return { local: this.localUsable ? join(this.settings.dir, key) : null, remote: s3 === null ? null : `s3://${s3.bucket}/${s3.prefix}${key}` }
  }

  /**
   * Writes the document to every destination (`local`: only to the local directory, for a copy of
   * what the bucket holds); a destination that fails is reported to `onError` and left null.
   */
  async writeTrace (trace: Trace, onError: (where: string, err: unknown) => void, to: 'both' | 'local' = 'both'): Promise<Destinations> {
    const { workflowId, runId } = trace.workflow
    const key = traceKey(workflowId, runId)
    const body = JSON.stringify(trace)
    const where = this.destinations(workflowId, runId)
    const [local, remote] = await Promise.all([
      !this.localUsable ? null : this.writeLocal(key, body).then(() => where.local, (err) => { onError('local', err); return null }),
      !this.hasRemote || to === 'local' ? null : this.put(key, body).then(() => where.remote, (err) => { onError('remote', err); return null })
    ])
    return { local, remote }
  }

  /**
   * Whether the trace is written where it matters and complete (no upload or attempt read left to
   * redo): in the bucket when there is one (a local copy without a pending marker says so too,
   * without asking it), else in the local directory. A bucket that fails to answer counts as not.
   */
  async hasComplete (workflowId: string, runId: string): Promise<boolean> {
    const exists = async (key: string) => await access(join(this.settings.dir, key)).then(() => true, () => false)
    if (await exists(pendingKey(workflowId, runId))) return false
    if (await exists(traceKey(workflowId, runId))) return true
    return this.hasRemote && await this.head(traceKey(workflowId, runId)).catch(() => false)
  }

  /**
   * Marks (or clears) a trace whose bucket copy could not be written, or that was assembled while
   * the attempt records could not be read: the keeper writes it again until that succeeds, also
   * after a restart (its first sweep looks SERVICE_TRACE_LOOKBACK_MS back).
   */
  async setPending (workflowId: string, runId: string, pending: boolean): Promise<void> {
    const path = join(this.settings.dir, pendingKey(workflowId, runId))
    if (pending) await this.writeLocal(pendingKey(workflowId, runId), '')
    else await rm(path, { force: true })
  }

  /** The document from the local directory, or null if there is none. */
  async readLocal (workflowId: string, runId: string): Promise<Trace | null> {
    if (!this.localUsable) return null
    const text = await readFile(join(this.settings.dir, traceKey(workflowId, runId)), 'utf8').catch(notFoundAsNull)
    return text === null ? null : JSON.parse(text) as Trace
  }

  /** The document from the bucket; null if it is not there; TraceStorageError if the bucket fails. */
  async readRemote (workflowId: string, runId: string, signal?: AbortSignal): Promise<Trace | null> {
    const text = await this.get(traceKey(workflowId, runId), signal)
    return text === null ? null : JSON.parse(text) as Trace
  }

  get hasRemote (): boolean { return this.settings.s3 !== null }

  /** Records a failed attempt where every worker (and the API) reads them: the bucket if there is one, else the local directory. */
  async writeAttempt (workflowId: string, runId: string, record: AttemptRecord): Promise<void> {
    const key = attemptKey(workflowId, runId, record.activityId, record.attempt)
    const body = JSON.stringify(record)
    await (this.hasRemote ? this.put(key, body) : this.writeLocal(key, body))
  }

  /** Every failed attempt recorded for a run. */
  async readAttempts (workflowId: string, runId: string, signal?: AbortSignal): Promise<AttemptRecord[]> {
    const prefix = attemptsKey(workflowId, runId)
    const bodies: string[] = []
    if (!this.hasRemote) {
      if (!this.localUsable) return []
      const dir = join(this.settings.dir, prefix)
      const names = await readdir(dir).catch(notFoundAsNull) ?? []
      for (const name of names.filter((n) => n.endsWith('.json'))) {
        const text = await readFile(join(dir, name), 'utf8').catch(notFoundAsNull)
        if (text !== null) bodies.push(text)
      }
    } else {
      for (const key of await this.list(prefix, signal)) {
        const text = await this.get(key, signal)
        if (text !== null) bodies.push(text)
      }
    }
    return bodies.map((b) => JSON.parse(b) as AttemptRecord)
  }

  close (): void {
    this.s3?.destroy()
  }

  private async writeLocal (key: string, body: string): Promise<void> {
    const path = join(this.settings.dir, key)
    const temp = `${path}.${randomUUID()}.tmp`
    await mkdir(dirname(path), { recursive: true })
    // Local retention (local-retention.ts) removes directories it finds empty, maybe this one just now.
    await writeFile(temp, body).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err
      await mkdir(dirname(path), { recursive: true })
      await writeFile(temp, body)
    })
    await rename(temp, path)
  }

  private async put (key: string, body: string): Promise<void> {
    const { bucket, prefix } = this.settings.s3!
    await this.s3call(async (client, { PutObjectCommand }, abortSignal) => await client.send(new PutObjectCommand({
      Bucket: bucket, Key: prefix + key, Body: body, ContentType: 'application/json'
    }), { abortSignal }))
  }

  /** Whether the object exists. */
  private async head (key: string): Promise<boolean> {
    const { bucket, prefix } = this.settings.s3!
    return await this.s3call(async (client, { HeadObjectCommand, NotFound }, abortSignal) => {
      try {
        await client.send(new HeadObjectCommand({ Bucket: bucket, Key: prefix + key }), { abortSignal })
        return true
      } catch (err) {
        if (err instanceof NotFound) return false
        throw err
      }
    })
  }

  private async get (key: string, signal?: AbortSignal): Promise<string | null> {
    const { bucket, prefix } = this.settings.s3!
    return await this.s3call(async (client, { GetObjectCommand, NoSuchKey }, abortSignal) => {
      try {
        const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: prefix + key }), { abortSignal })
        return await res.Body!.transformToString('utf8')
      } catch (err) {
        if (err instanceof NoSuchKey) return null
        throw err
      }
    }, signal)
  }

  private async list (keyPrefix: string, signal?: AbortSignal): Promise<string[]> {
    const { bucket, prefix } = this.settings.s3!
    const keys: string[] = []
    let token: string | undefined
    do {
      const res = await this.s3call(async (client, { ListObjectsV2Command }, abortSignal) => await client.send(new ListObjectsV2Command({
        Bucket: bucket, Prefix: prefix + keyPrefix, ContinuationToken: token
      }), { abortSignal }), signal)
      for (const { Key } of res.Contents ?? []) if (Key !== undefined) keys.push(Key.slice(prefix.length))
      token = res.IsTruncated === true ? res.NextContinuationToken : undefined
    } while (token !== undefined)
    return keys
  }

  /** One bounded storage call; every failure of it becomes a TraceStorageError. */
  private async s3call<T> (call: (client: S3Client, sdk: S3Sdk, signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const s3 = await loadS3Sdk()
    this.s3 ??= s3Client(s3, this.settings.s3!)
    const timeout = AbortSignal.timeout(S3_TIMEOUT_MS)
    try {
      return await call(this.s3, s3, signal === undefined ? timeout : AbortSignal.any([signal, timeout]))
    } catch (err) {
      if (signal?.aborted === true) throw err
      const what = err instanceof s3.S3ServiceException ? `${err.name} (HTTP ${err.$metadata.httpStatusCode ?? '?'})` : (err as Error).message
      throw new TraceStorageError(`Trace storage s3://${this.settings.s3!.bucket} failed: ${what}`, { cause: err })
    }
  }
}

function notFoundAsNull (err: NodeJS.ErrnoException): null {
  if (err.code === 'ENOENT') return null
  throw err
}
