/**
 * The engine's batcher acts on every run a visibility query matches, at its own pace, surviving
 * API restarts; the API builds the query from the run-list filters, counts, and reads progress (docs/batch.md).
 */
import { randomUUID } from 'node:crypto'
import protoRoot from '@temporalio/proto'
import type { temporal } from '@temporalio/proto'
import { encodeToPayloads } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js'
import { optionalTsToDate } from '@temporalio/common/lib/time.js'
import type { BatchBody, BatchFilter, BatchStarted, BatchStatus } from '../../../schemas/batch.js'
import { ApiError, RETRY_AFTER_SECONDS, validationError } from '../../../lib/api-error.js'
import { reapplyOptions } from '../control/index.js'
import { visibilityQuery } from '../runs/index.js'
import { INTERNAL_RUNS_EXCLUDED, ungroupableReason } from '../../../lib/visibility-query.js'
import { type Engine, grpcCode } from '../engine/index.js'
import { status as GrpcStatus } from '@grpc/grpc-js'
import { isoOrNull } from '@flowport/core/run'

const { BatchOperationType, BatchOperationState } = protoRoot.temporal.api.enums.v1
type Operation = Omit<temporal.api.workflowservice.v1.IStartBatchOperationRequest, 'namespace' | 'visibilityQuery' | 'jobId' | 'reason'>

/** A raw query is narrowed so internal runs stay out, as with filters; one that could escape the narrowing is a 400. */
function batchQuery (filter: BatchFilter): string {
  if (!('query' in filter)) return visibilityQuery(filter)
  // Text that closes the group early (`x) OR (y`) would undo the narrowing: refused, not sent.
  const problem = ungroupableReason(filter.query)
  if (problem !== undefined) throw validationError([{ path: '/filter/query', in: 'body', message: problem }])
  return [`(${filter.query})`, ...INTERNAL_RUNS_EXCLUDED].join(' AND ')
}

async function operationOf (engine: Engine, body: BatchBody, identity: string): Promise<Operation> {
  switch (body.action) {
    case 'terminate': return { terminationOperation: { identity } }
    case 'stop': return { cancellationOperation: { identity } }
    case 'signal': {
      if (body.signal === undefined) throw missing('/signal', 'is required for action "signal"')
      const input = await encodeToPayloads(engine.client.options.loadedDataConverter, ...(body.signal.payload === undefined ? [] : [body.signal.payload]))
      return { signalOperation: { signal: body.signal.name, input: { payloads: input ?? [] }, identity } }
    }
    case 'reset': {
      if (body.reset === undefined) throw missing('/reset', 'is required for action "reset"')
      const point = body.reset.from === 'start' ? { firstWorkflowTask: {} } : { lastWorkflowTask: {} }
      return { resetOperation: { identity, options: { ...point, ...reapplyOptions(body.reset.reapply) } } }
    }
  }
}

const missing = (path: string, message: string) => validationError([{ path, in: 'body', message }])

const orNotFound = (batchId: string) => (err: unknown): never => {
  throw err instanceof ApiError && err.statusCode === 404 ? new ApiError(404, 'BatchNotFoundError', `Batch ${batchId} not found`) : err
}

/** A raw query the engine cannot parse, or its store cannot run, is the client's 400 at that field, not a 500. */
function badQuery (err: unknown, filter: BatchFilter): unknown {
  if (!('query' in filter)) return err
  if (grpcCode(err) === GrpcStatus.INVALID_ARGUMENT) {
    return validationError([{ path: '/filter/query', in: 'body', message: `is not a visibility query the engine accepts: ${(err as Error).message}` }])
  }
  if (err instanceof ApiError && err.error === 'ValidationError') {
    return validationError([{ path: '/filter/query', in: 'body', message: 'is not a visibility query the engine\'s store can run' }])
  }
  return err
}

/**
 * The engine caps concurrent batches per namespace (one on a dev server): its RESOURCE_EXHAUSTED is
 * not retried (engine/engine.ts) and is the client's 429. It counts batches in visibility, which
 * lags: two batches started within that moment may both run.
 */
function tooManyBatches (err: unknown): unknown {
  if (grpcCode(err) !== GrpcStatus.RESOURCE_EXHAUSTED) return err
  return new ApiError(429, 'RateLimitedError', 'The engine is running as many batches as it runs at once (one, unless its frontend.MaxConcurrentBatchOperationPerNamespace says more): ' +
    'wait for the running one (GET /workflow/batch/{batchId}) or stop it (DELETE), then start this one', { headers: { 'retry-after': RETRY_AFTER_SECONDS } })
}

/** Engines since 1.28 answer the `…_WORKFLOW` names, older ones the short ones. */
const ACTIONS: Partial<Record<number, BatchStatus['action']>> = {
  [BatchOperationType.BATCH_OPERATION_TYPE_TERMINATE]: 'terminate',
  [BatchOperationType.BATCH_OPERATION_TYPE_TERMINATE_WORKFLOW]: 'terminate',
  [BatchOperationType.BATCH_OPERATION_TYPE_CANCEL]: 'stop',
  [BatchOperationType.BATCH_OPERATION_TYPE_CANCEL_WORKFLOW]: 'stop',
  [BatchOperationType.BATCH_OPERATION_TYPE_SIGNAL]: 'signal',
  [BatchOperationType.BATCH_OPERATION_TYPE_SIGNAL_WORKFLOW]: 'signal',
  [BatchOperationType.BATCH_OPERATION_TYPE_RESET]: 'reset',
  [BatchOperationType.BATCH_OPERATION_TYPE_RESET_WORKFLOW]: 'reset'
}

const STATES: Partial<Record<number, BatchStatus['state']>> = {
  [BatchOperationState.BATCH_OPERATION_STATE_RUNNING]: 'running',
  [BatchOperationState.BATCH_OPERATION_STATE_COMPLETED]: 'completed',
  [BatchOperationState.BATCH_OPERATION_STATE_FAILED]: 'failed'
}

export function createBatch ({ engine }: { engine: Engine }) {
  const { namespace } = engine
  const start = async (body: BatchBody, identity?: string, signal?: AbortSignal): Promise<BatchStarted> => {
    const client = engine.as(identity)
    const query = batchQuery(body.filter)
    const operation = await operationOf(engine, body, client.options.identity ?? '')
    const counted = await engine.call(() => client.workflowService.countWorkflowExecutions({ namespace, query }), { signal })
      .catch((err: unknown) => { throw badQuery(err, body.filter) })
    const batchId = randomUUID()
    await engine.call(() => client.workflowService.startBatchOperation({ namespace, visibilityQuery: query, jobId: batchId, reason: body.reason, ...operation }), { signal })
      .catch((err: unknown) => { throw tooManyBatches(err) })
    return { batchId, matched: Number(counted.count ?? 0) }
  }

  const read = async (batchId: string, signal?: AbortSignal): Promise<BatchStatus> => {
    const res = await engine.call(() => engine.client.workflowService.describeBatchOperation({ namespace, jobId: batchId }), { signal })
      .catch(orNotFound(batchId))
    return {
      batchId,
      action: ACTIONS[res.operationType ?? 0] ?? 'other',
      state: STATES[res.state ?? 0] ?? 'unknown',
      total: Number(res.totalOperationCount ?? 0),
      completed: Number(res.completeOperationCount ?? 0),
      failed: Number(res.failureOperationCount ?? 0),
      reason: res.reason ?? '',
      query: res.query ?? '',
      startTime: isoOrNull(optionalTsToDate(res.startTime)),
      closeTime: isoOrNull(optionalTsToDate(res.closeTime))
    }
  }

  /** Runs the batcher already acted on stay as they are. */
  const stop = async (batchId: string, identity?: string, signal?: AbortSignal): Promise<BatchStatus> => {
    const before = await read(batchId, signal)
    if (before.state !== 'running') return before
    const client = engine.as(identity)
    await engine.call(() => client.workflowService.stopBatchOperation({
      namespace, jobId: batchId, reason: 'Stopped through the Flowport API', identity: client.options.identity
    }), { signal }).catch(orNotFound(batchId))
    return await read(batchId, signal)
  }

  return { start, read, stop }
}

export type Batches = ReturnType<typeof createBatch>
