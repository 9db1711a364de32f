import { randomUUID } from 'node:crypto'
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common'
import type { WorkflowStartOptions } from '@temporalio/client'
import { STARTED_BY_MEMO_KEY, type CatalogWorkflow } from '@flowport/core/contract'
import type { StartWorkflowBody } from '../../../schemas/workflow.js'
import { ApiError, validationError } from '../../../lib/api-error.js'
import { isReservedWorkflowId } from '../engine/index.js'
import { assertMatches } from '../../../lib/json-schema.js'
import { durationMs } from '@flowport/core/duration'
import { assertFitsDeclared, deliveryOf, workflowTypeOf } from '../catalogs/index.js'
import { deliveryWorkflowId, webhookRunMemo } from '../webhooks/index.js'
import { IDEMPOTENCY_MEMO_KEY, callersKey, fingerprintOf, keyedWorkflowId, startWithKey } from './idempotency.js'
import type { StartDeps } from './deps.js'
import { versionRefused, versioningOverrideOf } from './pinned-version.js'

export interface Started {
  workflowId: string
  runId: string
  /** Undefined when it came by `inputRef`: read from the run's history when needed. */
  input: unknown
  workflowName: string
  catalog: string
}

/** The engine's limit on ids, in UTF-8 bytes (the schema's maxLength counts characters). */
const MAX_WORKFLOW_ID_BYTES = 1000

/** A run whose id is a fixed segment under /workflow/ (`catalog`) could not be read through /workflow/{id}/…: starts refuse it. */
export function fixedWorkflowSegment (url: string): string | undefined {
  const segment = /^\/workflow\/([^/]+)/.exec(url)?.[1]
  return segment === undefined || /[:*{]/.test(segment) ? undefined : segment
}

export function assertUsableId (reservedIds: ReadonlySet<string>, workflowId: string | undefined): void {
  if (workflowId === undefined) return
  if (reservedIds.has(workflowId) || isReservedWorkflowId(workflowId)) {
    const words = [...reservedIds].sort().map((w) => `"${w}"`).join(', ')
    throw validationError([{ path: '/workflowId', in: 'body', message: `is reserved: the paths under /workflow/ take ${words}, and ids starting with "__flowport" are internal` }])
  }
  // Checked here, or the engine refuses the start (INVALID_ARGUMENT) and the client gets a 500.
  if (Buffer.byteLength(workflowId) > MAX_WORKFLOW_ID_BYTES) {
    throw validationError([{ path: '/workflowId', in: 'body', message: `must NOT be longer than ${MAX_WORKFLOW_ID_BYTES} bytes in UTF-8` }])
  }
}

export async function startInput (payloads: StartDeps['payloads'], body: StartWorkflowBody, signal?: AbortSignal): Promise<unknown> {
  if (body.inputRef === undefined) {
    if (!('input' in body)) throw validationError([{ path: '/input', in: 'body', message: 'must have required property \'input\' (or send inputRef)' }])
    return body.input
  }
  if ('input' in body) throw validationError([{ path: '/inputRef', in: 'body', message: 'must not be sent with input: send one of the two' }])
  return await payloads.uploadedInput(body.inputRef, signal)
}

export const starterMemo = (startedBy: string | undefined) => startedBy === undefined ? {} : { [STARTED_BY_MEMO_KEY]: startedBy }

export interface StartOptions {
  signal?: AbortSignal
  idempotencyKey?: string
  identity?: string
  startedBy?: string
}

export function startActions ({ engine, catalogs, payloads, webhooks, runs, config, reservedIds }: StartDeps) {
  function catalogOf (body: StartWorkflowBody): string {
    return body.catalog ?? body.taskQueue ?? config.SERVICE_CATALOG_ID
  }

  /** Starts and schedules both check here, so a schedule stores nothing a start would refuse. */
  async function checkedWorkflow (catalog: string, workflowName: string, input: unknown, signal?: AbortSignal,
    { pinned = false } = {}): Promise<CatalogWorkflow> {
    const workflow = await catalogs.workflow(catalog, workflowName, signal, { pinned })
    assertMatches(workflow.inputSchema, input, 'input')
    assertFitsDeclared(await catalogs.get(catalog, signal), input, config.SERVICE_PAYLOAD_REF_THRESHOLD_BYTES, 'input')
    return workflow
  }

  async function startWorkflow (body: StartWorkflowBody, options: StartOptions = {}): Promise<Started> {
    const { signal, identity, startedBy } = options
    const idempotencyKey = options.idempotencyKey === undefined ? undefined : callersKey(options.idempotencyKey, startedBy)
    assertUsableId(reservedIds, body.workflowId)
    const webhook = webhooks.target(body.webhook)
    const catalog = catalogOf(body)
    const input = await startInput(payloads, body, signal)
    const workflow = await checkedWorkflow(catalog, body.workflowName, input, signal, { pinned: body.version !== undefined })
    const delivery = webhook === undefined ? undefined : deliveryOf(await catalogs.get(catalog, signal), workflow)
    const startDelay = body.startDelay === undefined ? undefined : durationMs(body.startDelay)
    const begin = async (workflowId: string, policies: Pick<WorkflowStartOptions, 'workflowIdReusePolicy' | 'workflowIdConflictPolicy' | 'memo'>) =>
      await engine.call(() => engine.as(identity).workflow.start(workflowTypeOf(workflow), {
        workflowId, taskQueue: catalog, args: [input], startDelay, ...versioningOverrideOf(body.version), ...policies
      }), { signal, workflowId }).catch((err: unknown) => { throw versionRefused(err, body.version, catalog) })
    // The delivery first, then the run whose memo names it: a run with a webhook never exists
    // without its delivery, whatever happens to this process between the two starts.
    const withDelivery = async (workflowId: string): Promise<{ deliveryId?: string, runMemo: Record<string, unknown> }> => {
      if (webhook === undefined) return { runMemo: starterMemo(startedBy) }
      const deliveryId = deliveryWorkflowId(workflowId, idempotencyKey)
      await webhooks.startDelivery({ id: deliveryId, workflowId, catalog, ...delivery }, webhook, signal)
      return { deliveryId, runMemo: { ...webhookRunMemo(webhook, deliveryId), ...starterMemo(startedBy) } }
    }
    const started = (workflowId: string, runId: string): Started =>
      ({ workflowId, runId, workflowName: workflow.name, catalog, input: body.inputRef === undefined ? input : undefined })
    if (idempotencyKey !== undefined) {
      const workflowId = body.workflowId ?? keyedWorkflowId(catalog, idempotencyKey)
      // `version` only when sent, so that the keys of runs started without one keep their fingerprints.
      const fingerprint = fingerprintOf({ catalog, workflowName: workflow.name, input, webhookUrl: webhook?.url ?? null, ...(body.version && { version: body.version }) })
      // Shared by every request with this key; one whose run was never started fails, so a later retry starts it again.
      const { runMemo } = await withDelivery(workflowId)
      const runId = await startWithKey(engine, {
        workflowId,
        key: idempotencyKey,
        fingerprint,
        signal,
        start: async (reusePolicy) => await begin(workflowId, {
          workflowIdReusePolicy: reusePolicy,
          workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
          memo: { ...runMemo, [IDEMPOTENCY_MEMO_KEY]: { key: idempotencyKey, fingerprint } }
        })
      })
      return started(workflowId, runId)
    }
    const workflowId = body.workflowId ?? randomUUID()
    const { deliveryId, runMemo } = await withDelivery(workflowId)
    try {
      // A closed run's id may be used again (a new run starts); an open one is refused (409).
      const handle = await begin(workflowId, { workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE, workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL, memo: runMemo })
      return started(workflowId, handle.firstExecutionRunId)
    } catch (err) {
      // Refused (a 409, a 400): no run will name this request's delivery. An engine error may hide a start that happened.
      if (deliveryId !== undefined && err instanceof ApiError && err.statusCode < 500) await webhooks.abandonDelivery(deliveryId)
      if (err instanceof ApiError && err.error === 'WorkflowAlreadyStartedError') throw await alreadyStarted(workflowId, signal)
      throw err
    }
  }

  /** The 409 names the run that holds the id, so the client can follow it instead. */
  async function alreadyStarted (workflowId: string, signal?: AbortSignal): Promise<ApiError> {
    const running = await runs.describeRun({ workflowId, signal }).catch(() => undefined)
    return new ApiError(409, 'WorkflowAlreadyStartedError', `Workflow ${workflowId} is already running${running ? ` (run ${running.runId})` : ''}`,
      { workflowId, runId: running?.runId })
  }

  return { catalogOf, checkedWorkflow, startWorkflow }
}

export type StartActions = ReturnType<typeof startActions>
