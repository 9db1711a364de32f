/**
 * The trace destinations: a local directory and, when a bucket is set, S3-compatible storage
 * (@aws-sdk/client-s3). Both hold the same keys (layout.ts). Local files are written to a
 * temporary name and renamed, so a reader never sees half a document.
 */
import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { S3Objects } from '../s3.js'
import { attemptKey, attemptsKey, pendingKey, traceKey } from './layout.js'
import type { AttemptRecord, Trace } from './schema.js'
import type { TraceSettings } from './settings.js'
import { mapBounded } from '../bounded.js'

/** Storage answered with an error or not at all (not: the object does not exist). */
export class TraceStorageError extends Error {
  override name = 'TraceStorageError'
}

/** Attempt records read at once: one trace read of a run with many failing steps neither waits on them one by one nor floods the store. */
const READ_PARALLEL = 8

/** One storage call may take this long; the SDK retries once within it. */
const S3_TIMEOUT_MS = 5000
/** A HEAD or a listing page: what a result's read waits for at most (`writtenDestinations`). */
const S3_CHECK_TIMEOUT_MS = 2000
/** Runs whose bucket copy was seen, remembered so a repeated result read asks the bucket once. */
const SEEN_REMOTE_MAX = 10_000

export interface Destinations { local: string | null, remote: string | null }

export class TraceStore {
  /** The bucket's objects; null without a bucket. */
  private readonly remote: S3Objects | null
  /** Keys of traces seen in the bucket (a written trace stays), oldest first. */
  private readonly seenRemote = new Set<string>()
  /** False once `checkLocalDir` found the directory unwritable: it is then neither named nor written nor read. */
  private localUsable = true

  constructor (readonly settings: TraceSettings) {
    const { s3 } = settings
    this.remote = s3 && new S3Objects(s3, S3_TIMEOUT_MS, (what, cause) => new TraceStorageError(`Trace storage s3://${s3.bucket} failed: ${what}`, { cause }), S3_CHECK_TIMEOUT_MS)
  }

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
   * Where the run's trace is, as a result names it: the bucket only once the trace is there (one
   * HEAD within S3_CHECK_TIMEOUT_MS; a bucket that fails or does not answer in time: not named), so
   * a result never points at a copy whose write failed or has not happened yet.
   */
  async writtenDestinations (workflowId: string, runId: string, signal?: AbortSignal): Promise<Destinations> {
    const where = this.destinations(workflowId, runId)
    if (this.remote === null) return where
    const key = traceKey(workflowId, runId)
    if (this.seenRemote.has(key)) return where
    const found = await this.remote.head(key, signal).then((object) => object !== null, () => false)
    if (!found) return { ...where, remote: null }
    this.seenRemote.add(key)
    if (this.seenRemote.size > SEEN_REMOTE_MAX) this.seenRemote.delete(this.seenRemote.values().next().value!)
    return where
  }

  /**
   * Writes the document to every destination (`local`: only to the local directory, for a copy of
   * what the bucket holds; `remote`: only to the bucket, an upload of the local copy redone); a
   * destination that fails is reported to `onError` and left null.
   */
  async writeTrace (trace: Trace, onError: (where: string, err: unknown) => void, to: 'both' | 'local' | 'remote' = 'both'): Promise<Destinations> {
    const { workflowId, runId } = trace.workflow
    const key = traceKey(workflowId, runId)
    const body = JSON.stringify(trace)
    const where = this.destinations(workflowId, runId)
    const [local, remote] = await Promise.all([
      !this.localUsable || to === 'remote' ? null : this.writeLocal(key, body).then(() => where.local, (err) => { onError('local', err); return null }),
      this.remote === null || to === 'local' ? null : this.remote.put(key, body).then(() => where.remote, (err) => { onError('remote', err); return null })
    ])
    return { local, remote }
  }

  /**
   * Whether the trace is written where it matters and complete (no upload or attempt read left to
   * redo): in the bucket when there is one (a local copy without a pending marker says so too,
   * without asking it), else in the local directory. A bucket that fails to answer counts as not.
   */
  async hasComplete (workflowId: string, runId: string): Promise<boolean> {
    if (await this.isPending(workflowId, runId)) return false
    if (await localExists(this.settings.dir, traceKey(workflowId, runId))) return true
    return this.remote !== null && await this.remote.head(traceKey(workflowId, runId)).then((found) => found !== null, () => false)
  }

  /** Whether the local copy is marked to be written again (setPending). */
  async isPending (workflowId: string, runId: string): Promise<boolean> {
    return await localExists(this.settings.dir, pendingKey(workflowId, runId))
  }

  /**
   * Marks (or clears) a trace whose bucket copy could not be written, or that was assembled while
   * the attempt records could not be read: the keeper writes it again until that succeeds, also
   * after a restart (its first sweep looks SERVICE_TRACE_LOOKBACK_MS back).
   */
  async setPending (workflowId: string, runId: string, pending: boolean): Promise<void> {
    if (pending) await this.writeLocal(pendingKey(workflowId, runId), '')
    else await rm(join(this.settings.dir, pendingKey(workflowId, runId)), { force: true })
  }

  /** The document from the local directory, or null if there is none. */
  async readLocal (workflowId: string, runId: string): Promise<Trace | null> {
    if (!this.localUsable) return null
    const text = await readFile(join(this.settings.dir, traceKey(workflowId, runId)), 'utf8').catch(notFoundAsNull)
    return text === null ? null : JSON.parse(text) as Trace
  }

  /** The document from the bucket; null if it is not there; TraceStorageError if the bucket fails. */
  async readRemote (workflowId: string, runId: string, signal?: AbortSignal): Promise<Trace | null> {
    const body = await this.remote!.get(traceKey(workflowId, runId), signal)
    return body === null ? null : JSON.parse(Buffer.from(body).toString('utf8')) as Trace
  }

  get hasRemote (): boolean { return this.remote !== null }

  /** Records a failed attempt where every worker (and the API) reads them: the bucket if there is one, else the local directory. */
  async writeAttempt (workflowId: string, runId: string, record: AttemptRecord): Promise<void> {
    const key = attemptKey(workflowId, runId, record.activityId, record.attempt)
    const body = JSON.stringify(record)
    await (this.remote !== null ? this.remote.put(key, body) : this.writeLocal(key, body))
  }

  /** Every failed attempt recorded for a run (at most 2 × ATTEMPTS_KEPT per step, layout.ts), read READ_PARALLEL at a time. */
  async readAttempts (workflowId: string, runId: string, signal?: AbortSignal): Promise<AttemptRecord[]> {
    const prefix = attemptsKey(workflowId, runId)
    let bodies: Array<string | Uint8Array | null>
    if (this.remote === null) {
      if (!this.localUsable) return []
      const dir = join(this.settings.dir, prefix)
      const names = (await readdir(dir).catch(notFoundAsNull) ?? []).filter((n) => n.endsWith('.json'))
      bodies = await mapBounded(names, READ_PARALLEL, async (name) => await readFile(join(dir, name), 'utf8').catch(notFoundAsNull))
    } else {
      const remote = this.remote
      bodies = await mapBounded(await remote.list(prefix, signal), READ_PARALLEL, async (key) => await remote.get(key, signal))
    }
    return bodies.filter((b) => b !== null).map((b) => JSON.parse(Buffer.from(b).toString('utf8')) as AttemptRecord)
  }

  close (): void {
    this.remote?.close()
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
}

const localExists = async (dir: string, key: string) => await access(join(dir, key)).then(() => true, () => false)

function notFoundAsNull (err: NodeJS.ErrnoException): null {
  if (err.code === 'ENOENT') return null
  throw err
}
