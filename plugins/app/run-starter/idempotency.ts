/**
 * Idempotency-Key on POST /workflow/start and /workflow/run (docs/idempotency.md), kept with no
 * store but the engine:
 *
 * - The key, scoped to the caller's API key when keys are in use (`callersKey`), names the
 *   workflow id: without a `workflowId` in the body the run's id is a name-based UUID (v5) of
 *   catalog and key, so every request with one key asks the engine for
 *   one id, and the engine's own id uniqueness decides which request starts the run.
 * - The start uses reuse policy REJECT_DUPLICATE (a closed run's id is not started again while
 *   the engine keeps that run) and conflict policy USE_EXISTING (an open run is answered, not
 *   refused), so concurrent and later retries never start a second run.
 * - The run's memo records the key and a fingerprint of the request; a request whose fingerprint
 *   differs is a 422. The answer is always the first run of the id's chain: the run the first
 *   request started, also after it continued as new.
 */
import type { WorkerDeploymentVersion } from '../../../schemas/deployment-version.js'
import { createHash } from 'node:crypto'
import { WorkflowIdReusePolicy } from '@temporalio/common'
import { ApiError } from '../../../lib/api-error.js'
import { isTerminalStatus } from '@flowport/core/run'
import { statusFromEngine, type Engine } from '../engine/index.js'

/** Memo field of a run started with a key: `{key, fingerprint}`. */
export const IDEMPOTENCY_MEMO_KEY = 'flowportIdempotency'

export interface IdempotencyRecord { key: string, fingerprint: string }

/**
 * The key as the API keeps it: with API keys in use it belongs to the caller's key, so clients of
 * two keys that both send `order-42` make two requests, not one. A space is in neither a key nor a
 * key id, so `<keyId> <key>` never spells another caller's key, nor a key sent with auth off.
 */
export function callersKey (key: string, keyId: string | undefined): string {
  return keyId === undefined ? key : `${keyId} ${key}`
}

/** JSON with object keys sorted at every level (RFC 8785's order; numbers and strings as JSON.stringify writes them). */
export function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value ?? null)
}

export interface Fingerprinted {
  catalog: string
  /** Canonical workflow name (an alias and its workflow are one request). */
  workflowName: string
  input: unknown
  /** Where the completion webhook goes; its secret is left out (it must not reach the memo). */
  webhookUrl: string | null
  /** The version a start pins its run to; absent when it names none. */
  version?: WorkerDeploymentVersion
}

export function fingerprintOf (request: Fingerprinted): string {
  return createHash('sha256').update(canonicalJson(request)).digest('base64url')
}

/** RFC 9562 name-based UUID (version 5, SHA-1) of catalog and key, in the URL namespace. */
export function keyedWorkflowId (catalog: string, key: string): string {
  const namespace = Buffer.from('6ba7b8119dad11d180b400c04fd430c8', 'hex')
  const name = `flowport:idempotency:${encodeURIComponent(catalog)}:${encodeURIComponent(key)}`
  const hash = createHash('sha1').update(namespace).update(name).digest()
  hash[6] = (hash[6] & 0x0f) | 0x50
  hash[8] = (hash[8] & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

export interface KeyedStart {
  workflowId: string
  key: string
  fingerprint: string
  /** Starts the run with the given reuse policy, conflict policy USE_EXISTING and the key's memo. */
  start: (reusePolicy: WorkflowIdReusePolicy) => Promise<unknown>
  signal?: AbortSignal
}

const reused = (workflowId: string, runId: string) => new ApiError(422, 'IdempotencyKeyReusedError',
  `This Idempotency-Key started run ${runId} of ${workflowId} with another request (workflow name, input, catalog or webhook URL); ` +
  'send a new key for a new request', { workflowId, runId })

/**
 * Starts a run for a key, or finds the one the key started: returns the first run of the id's
 * chain. Two rounds at most: a closed run of another key (an explicit `workflowId` reused) is
 * followed by one start that allows the id's reuse.
 */
export async function startWithKey (engine: Engine, keyed: KeyedStart): Promise<string> {
  const { workflowId, key, fingerprint, signal } = keyed
  for (const reusePolicy of [WorkflowIdReusePolicy.REJECT_DUPLICATE, WorkflowIdReusePolicy.ALLOW_DUPLICATE]) {
    try {
      await keyed.start(reusePolicy)
    } catch (err) {
      // A closed run holds the id: it is the one to compare with.
      if (!(err instanceof ApiError && err.error === 'WorkflowAlreadyStartedError')) throw err
    }
    const owner = await ownerOf(engine, workflowId, signal)
    if (owner.record?.key === key) {
      if (owner.record.fingerprint !== fingerprint) throw reused(workflowId, owner.firstRunId)
      return owner.firstRunId
    }
    if (!owner.closed) {
      throw new ApiError(409, 'WorkflowAlreadyStartedError', `Workflow ${workflowId} is already running (run ${owner.runId})`, { workflowId, runId: owner.runId })
    }
  }
  throw new ApiError(409, 'WorkflowAlreadyStartedError', `Workflow ${workflowId} was started again meanwhile by another request`, { workflowId })
}

interface Owner {
  /** The latest run of the id and whether it is closed. */
  runId: string
  closed: boolean
  /** The first run of its chain and the key record it was started with. */
  firstRunId: string
  record: IdempotencyRecord | undefined
}

/** The id's latest run, and the key record of the first run of its chain (a continue-as-new may not carry the memo over). */
async function ownerOf (engine: Engine, workflowId: string, signal?: AbortSignal): Promise<Owner> {
  const describe = async (runId?: string) => await engine.call(() => engine.client.workflow.getHandle(workflowId, runId).describe(), { signal, workflowId, runId })
  const latest = await describe()
  const firstRunId = latest.raw.workflowExecutionInfo?.firstRunId || latest.runId
  const first = firstRunId === latest.runId ? latest : await describe(firstRunId)
  return {
    runId: latest.runId,
    closed: isTerminalStatus(statusFromEngine(latest.status.name)),
    firstRunId,
    record: recordOf(first.memo?.[IDEMPOTENCY_MEMO_KEY])
  }
}

function recordOf (value: unknown): IdempotencyRecord | undefined {
  if (value === null || typeof value !== 'object') return undefined
  const { key, fingerprint } = value as Record<string, unknown>
  return typeof key === 'string' && typeof fingerprint === 'string' ? { key, fingerprint } : undefined
}
