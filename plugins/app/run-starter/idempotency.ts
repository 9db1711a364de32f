/**
 * Idempotency-Key with no store but the engine (docs/idempotency.md): the key names the workflow id
 * (a v5 UUID of catalog and key), so the engine's id uniqueness decides which request starts the
 * run; REJECT_DUPLICATE and USE_EXISTING keep retries from starting a second one. The memo's
 * fingerprint makes a different request with the key a 422. The answer is the chain's first run.
 */
import type { WorkerDeploymentVersion } from '../../../schemas/deployment-version.js'
import { createHash } from 'node:crypto'
import { WorkflowIdReusePolicy } from '@temporalio/common'
import { ApiError } from '../../../lib/api-error.js'
import { isTerminalStatus } from '@flowport/core/run'
import { statusFromEngine, type Engine } from '../engine/index.js'

export const IDEMPOTENCY_MEMO_KEY = 'flowportIdempotency'

export interface IdempotencyRecord { key: string, fingerprint: string }

/**
 * Two API keys that both send `order-42` make two requests. A space is in neither a key nor a key
 * id, so `<keyId> <key>` never spells another caller's key, nor a key sent with auth off.
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
  /** Canonical: an alias and its workflow are one request. */
  workflowName: string
  input: unknown
  /** The webhook's secret is left out: it must not reach the memo. */
  webhookUrl: string | null
  version?: WorkerDeploymentVersion
}

export function fingerprintOf (request: Fingerprinted): string {
  return createHash('sha256').update(canonicalJson(request)).digest('base64url')
}

/** RFC 9562 version 5, in the URL namespace. */
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
  start: (reusePolicy: WorkflowIdReusePolicy) => Promise<unknown>
  signal?: AbortSignal
}

const reused = (workflowId: string, runId: string) => new ApiError(422, 'IdempotencyKeyReusedError',
  `This Idempotency-Key started run ${runId} of ${workflowId} with another request (workflow name, input, catalog or webhook URL); ` +
  'send a new key for a new request', { workflowId, runId })

/** Two rounds at most: a closed run of another key (an explicit `workflowId` reused) is followed by one start allowing reuse. */
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
  runId: string
  closed: boolean
  firstRunId: string
  record: IdempotencyRecord | undefined
}

/** The key record is read from the chain's first run: a continue-as-new may not carry the memo over. */
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
