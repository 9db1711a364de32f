/**
 * The run's catalog says which handlers its workflow declares and their payloads: unknown names and
 * bad payloads are answered before anything reaches the engine.
 */
import { randomUUID } from 'node:crypto'
import { QueryNotRegisteredError, QueryRejectedError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client'
import protoRoot from '@temporalio/proto'
import { status as GrpcStatus } from '@grpc/grpc-js'
import { decodeFromPayloadsAtIndex, encodeToPayloads } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js'
import type { CatalogHandler, CatalogWorkflow } from '@flowport/core/contract'
import { ApiError, engineUnavailable, validationError, type ErrorName } from '../../../lib/api-error.js'
import { alreadyClosed, closedMeanwhile, statusFromEngine, grpcCode } from '../engine/index.js'
import { assertMatches } from '../../../lib/json-schema.js'
import { assertRunMatches } from '../../http/conditional/entity-tags.js'
import { isTerminalStatus, type RunRef, type Status } from '@flowport/core/run'
import type { UpdateState } from '../../../schemas/workflow.js'
import type { ControlDeps } from './deps.js'
import type { ControlCall } from './stop.js'
import { assertFitsDeclared, entryOfType } from '../catalogs/index.js'

const { UpdateWorkflowExecutionLifecycleStage } = protoRoot.temporal.api.enums.v1

export type HandlerKind = 'signal' | 'query' | 'update'

const LIST = { signal: 'signals', query: 'queries', update: 'updates' } as const
const NOT_FOUND: Record<HandlerKind, ErrorName> = { signal: 'SignalNotFoundError', query: 'QueryNotFoundError', update: 'UpdateNotFoundError' }

export interface HandlerCall extends ControlCall {
  kind: HandlerKind
  name: string
  payload: unknown
}

/** The name the engine knows the handler by: a catalog file may map the API's name to the worker's (docs/any-worker.md). */
export const handlerNameOf = (workflow: CatalogWorkflow | undefined, kind: HandlerKind, name: string): string =>
  workflow?.[LIST[kind]].find((h) => h.name === name)?.handlerName ?? name

export function handlerArgs (workflow: CatalogWorkflow | undefined, where: { type: string, catalog: string, run?: RunRef },
  { kind, name, payload }: Pick<HandlerCall, 'kind' | 'name' | 'payload'>): unknown[] {
  const handler: CatalogHandler | undefined = workflow?.[LIST[kind]].find((h) => h.name === name)
  if (!handler) {
    throw new ApiError(404, NOT_FOUND[kind], `Workflow ${where.type} (catalog ${where.catalog}) declares no ${kind} named ${name}`, where.run)
  }
  if (handler.payloadSchema) {
    assertMatches(handler.payloadSchema, payload, 'payload')
  } else if (payload !== undefined) {
    throw validationError([{ path: '/', in: 'payload', message: `must be absent: ${kind} ${name} takes no payload` }])
  }
  return payload === undefined ? [] : [payload]
}

function noFirstTask (run: RunRef, status: Status): ApiError {
  if (isTerminalStatus(status)) return alreadyClosed(run, `${status} before a worker took its first workflow task: no worker can answer a query`)
  return new ApiError(409, 'WorkflowNotStartedError',
    `Workflow ${run.workflowId} run ${run.runId} has not started yet (a startDelay or a retry's backoff holds its first workflow task): a worker answers queries once it took that task`, run)
}

function updateError (err: unknown, name: string, run: { workflowId: string, runId: string }): unknown {
  if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return engineUnavailable(`Update ${name} did not finish in time (is a worker running for this catalog?)`)
  return closedMeanwhile(err, run)
}

export interface UpdateAttempt { call: HandlerCall, run: { workflowId: string, runId: string }, updateId: string, lengthBefore: number }

export interface UpdateRef { workflowId: string, updateId: string, signal?: AbortSignal }

export function handlerActions ({ engine, runs, catalogs, config }: ControlDeps) {
  async function prepare (call: HandlerCall) {
    const execution = await runs.describeRun({ workflowId: call.workflowId, runId: call.runId, signal: call.signal })
    const run = { workflowId: call.workflowId, runId: execution.runId }
    if (call.kind !== 'query') assertRunMatches(call.ifMatch, run)
    const catalog = await catalogs.get(execution.taskQueue, call.signal)
    const workflow = entryOfType(catalog, execution.type)
    const args = handlerArgs(workflow, { type: execution.type, catalog: execution.taskQueue, run }, call)
    assertFitsDeclared(catalog, call.payload, config.SERVICE_PAYLOAD_REF_THRESHOLD_BYTES, 'payload')
    // Queries may still be answered by a closed run; signals and updates cannot reach one.
    const status = statusFromEngine(execution.status.name)
    if (call.kind !== 'query' && isTerminalStatus(status)) throw alreadyClosed(run, status)
    return { execution, run, args, handlerName: handlerNameOf(workflow, call.kind, call.name), handle: engine.as(call.identity).workflow.getHandle(run.workflowId, run.runId) }
  }

  async function sendSignal (call: HandlerCall) {
    const { run, args, handlerName, handle } = await prepare(call)
    await engine.call(() => handle.signal(handlerName, ...args), { signal: call.signal, ...run }).catch((err: unknown) => { throw closedMeanwhile(err, run) })
    return run
  }

  async function runQuery (call: HandlerCall) {
    const { execution, run, args, handlerName, handle } = await prepare(call)
    try {
      const result = await engine.call(() => handle.query(handlerName, ...args), { signal: call.signal, ...run })
      return { ...run, result: result ?? null }
    } catch (err) {
      // The engine reports an unknown query and a query handler that threw the same way.
      if (err instanceof QueryNotRegisteredError) {
        if (/unknown queryType/i.test(err.message)) throw new ApiError(404, 'QueryNotFoundError', `The run does not handle query ${call.name}`, run)
        throw new ApiError(422, 'QueryFailedError', `Query ${call.name} failed: ${err.message}`, run)
      }
      if (err instanceof QueryRejectedError) throw alreadyClosed(run, 'the run rejects queries in its state')
      // A query needs a worker to have taken the run's first workflow task; the engine refuses one before.
      if (grpcCode(err) === GrpcStatus.FAILED_PRECONDITION) throw noFirstTask(run, statusFromEngine(execution.status.name))
      throw err
    }
  }

  async function runUpdate (call: HandlerCall) {
    const { execution, run, args, handlerName, handle } = await prepare(call)
    const updateId = randomUUID()
    try {
      const result = await engine.call(() => handle.executeUpdate(handlerName, { args: args as [], updateId }), { signal: call.signal, ...run })
      return { kind: 'update' as const, ...run, updateId, result: result ?? null }
    } catch (err) {
      throw await updateFailure(err, { call, run, updateId, lengthBefore: execution.historyLength })
    }
  }

  /** `Prefer: respond-async`: returns once the validator passed; the handler runs on. */
  async function startUpdate (call: HandlerCall) {
    const { execution, run, args, handlerName } = await prepare(call)
    const client = engine.as(call.identity)
    const updateId = randomUUID()
    // Not WorkflowHandle.startUpdate: it hides a validator's rejection until a later result(), and a
    // rejection must be a 422 now.
    const response = await engine.call(async () => await client.workflowService.updateWorkflowExecution({
      namespace: client.options.namespace,
      workflowExecution: run,
      waitPolicy: { lifecycleStage: UpdateWorkflowExecutionLifecycleStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED },
      request: {
        meta: { updateId, identity: client.options.identity },
        input: { name: handlerName, args: { payloads: await encodeToPayloads(client.options.loadedDataConverter, ...args) } }
      }
    }), { signal: call.signal, ...run }).catch((err: unknown) => { throw updateError(err, call.name, run) })
    const failure = response.outcome?.failure
    // A handler that failed right after acceptance is still accepted (its update reads `failed`); only a rejection is a 422.
    if (failure && !(await updateWasAccepted(run, updateId, execution.historyLength, call.signal))) {
      throw new ApiError(422, 'UpdateRejectedError', `Update ${call.name} was rejected: ${failure.message ?? 'by its validator'}`, run)
    }
    return { ...run, updateId }
  }

  async function updateFailure (err: unknown, { call, run, updateId, lengthBefore }: UpdateAttempt): Promise<unknown> {
    if (!(err instanceof WorkflowUpdateFailedError)) return updateError(err, call.name, run)
    // The engine reports a validator's rejection and a failed handler the same way; only an
    // accepted update leaves events in the history.
    const accepted = await updateWasAccepted(run, updateId, lengthBefore, call.signal)
    const reason = err.cause instanceof Error ? err.cause.message : err.message
    return accepted
      ? new ApiError(422, 'UpdateFailedError', `Update ${call.name} failed: ${reason}`, run)
      : new ApiError(422, 'UpdateRejectedError', `Update ${call.name} was rejected: ${reason}`, run)
  }

  /** Backwards down to the length before the update was sent: an accepted update left an event with its id there. */
  async function updateWasAccepted (run: { workflowId: string, runId: string }, updateId: string, lengthBefore: number, signal?: AbortSignal): Promise<boolean> {
    let nextPageToken: Uint8Array | undefined
    do {
      const res = await engine.call(() => engine.client.workflowService.getWorkflowExecutionHistoryReverse({
        namespace: engine.namespace, execution: run, maximumPageSize: 100, nextPageToken
      }), { signal, ...run })
      for (const event of res.history?.events ?? []) {
        if (Number(event.eventId) <= lengthBefore) return false
        const id = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId ??
          event.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId
        if (id === updateId) return true
      }
      nextPageToken = res.nextPageToken?.length ? res.nextPageToken : undefined
    } while (nextPageToken)
    return false
  }

  /** PollWorkflowExecutionUpdate asked for the accepted stage, so it answers at once. */
  async function readUpdate (ref: UpdateRef): Promise<UpdateState> {
    const { namespace, loadedDataConverter } = engine.client.options
    const ctx = { workflowId: ref.workflowId }
    const res = await engine.call(() => engine.client.workflowService.pollWorkflowExecutionUpdate({
      namespace,
      updateRef: { workflowExecution: { workflowId: ref.workflowId }, updateId: ref.updateId },
      waitPolicy: { lifecycleStage: UpdateWorkflowExecutionLifecycleStage.UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED }
    }), { signal: ref.signal, ...ctx }).catch((err: unknown) => {
      if (err instanceof ApiError && err.statusCode === 404) {
        throw new ApiError(404, 'UpdateNotFoundError', `Workflow ${ref.workflowId} has no accepted update ${ref.updateId} in its latest run`, ctx)
      }
      throw err
    })
    const run = { workflowId: ref.workflowId, runId: res.updateRef?.workflowExecution?.runId ?? '', updateId: ref.updateId }
    const outcome = res.outcome
    if (outcome?.failure) return { ...run, state: 'failed', result: null, error: outcome.failure.message ?? 'the update handler failed' }
    if (outcome?.success) {
      const result = await decodeFromPayloadsAtIndex(loadedDataConverter, 0, outcome.success.payloads ?? [])
      return { ...run, state: 'completed', result: result ?? null, error: null }
    }
    return { ...run, state: 'accepted', result: null, error: null }
  }

  return { sendSignal, runQuery, runUpdate, startUpdate, updateFailure, readUpdate }
}
