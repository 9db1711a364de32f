/**
 * GET …/trace-log: a closed run's stored trace, else the same document assembled from the engine's history
 * (docs/traces.md lists each `source`). An open run's `attention` is the status's (./attention.ts): a run
 * whose workflow task keeps failing looks stuck here too, not merely running.
 */
import { assembleTrace, readWholeHistory, TraceStorageError, type Trace, type TraceStore } from '@flowport/core/trace'
import { ApiError, RETRY_AFTER_SECONDS, type ApiErrorExtras } from '../../../lib/api-error.js'
import { isClosed, type ExecutionReads } from './execution.js'
import type { DescribeOptions, Execution } from './types.js'
import type { RunRef } from '@flowport/core/run'
import { readAttention } from './attention.js'
import type { TraceLog } from '../../../schemas/trace.js'
import type { RunsContext } from './deps.js'
import { traceWriterOf, type TraceWriter } from './trace-writer.js'

const storageDown = (err: TraceStorageError, run: ApiErrorExtras) =>
  new ApiError(503, 'TraceStorageUnavailableError', err.message, { ...run, headers: { 'retry-after': RETRY_AFTER_SECONDS } })

/** The stored document, from the bucket or the local directory; null when neither has it. */
async function readStored (store: TraceStore, run: RunRef, signal?: AbortSignal): Promise<TraceLog | null> {
  const where = store.destinations(run.workflowId, run.runId)
  let remoteError: TraceStorageError | undefined
  if (store.hasRemote) {
    try {
      const trace = await store.readRemote(run.workflowId, run.runId, signal)
      if (trace !== null) return { ...run, source: 'remote', location: where.remote, partial: false, attention: null, trace }
    } catch (err) {
      if (!(err instanceof TraceStorageError)) throw err
      remoteError = err
    }
  }
  const trace = await store.readLocal(run.workflowId, run.runId)
  if (trace !== null) return { ...run, source: 'local', location: where.local, partial: false, attention: null, trace }
  if (remoteError !== undefined) throw storageDown(remoteError, run)
  return null
}

async function assembleFromEngine (engine: RunsContext['engine'], store: TraceStore, run: RunRef, whose: Promise<TraceWriter>, signal?: AbortSignal): Promise<Trace> {
  const namespace = engine.namespace
  const [events, [writer, attempts]] = await Promise.all([
    readWholeHistory(async (nextPageToken) => await engine.call(() => engine.client.workflowService.getWorkflowExecutionHistory({
      namespace, execution: run, nextPageToken, skipArchival: true
    }), { signal, ...run })),
    // Only Flowport's workers record attempts; the engine keeps the last of each step.
    whose.then(async (writer) => [writer, writer.kind === 'none'
      ? []
      : await store.readAttempts(run.workflowId, run.runId, signal).catch((err: unknown) => {
        throw err instanceof TraceStorageError ? storageDown(err, run) : err
      })] as const)
  ])
  // Which steps are evaluators comes from the catalog; without it every call reads as a step.
  const evaluators = writer.kind === 'flowport' ? writer.evaluators : new Set<string>()
  return assembleTrace({ run, events, attempts, isEvaluator: (type) => evaluators.has(type), maxValueBytes: store.settings.maxValueBytes })
}

export function traceLogReads (deps: RunsContext & ExecutionReads) {
  async function readTraceLog ({ workflowId, runId, signal }: DescribeOptions): Promise<TraceLog> {
    const store = deps.traces
    if (store === null) {
      throw new ApiError(404, 'TraceNotFoundError', 'Tracing is switched off on this API (SERVICE_TRACE_ENABLED=false)', { workflowId, runId })
    }
    const known = runId === undefined ? undefined : deps.closedRuns.get(workflowId, runId)?.trace
    if (known) return known
    let execution: Execution
    try {
      execution = await deps.describeForRead({ workflowId, runId, signal })
    } catch (err) {
      // The engine forgets closed runs after its retention period; their traces outlive it.
      const stored = err instanceof ApiError && err.statusCode === 404 && runId !== undefined
        ? await readStored(store, { workflowId, runId }, signal)
        : null
      if (stored !== null) return stored
      throw err
    }
    const run = { workflowId, runId: execution.runId }
    let writer: Promise<TraceWriter> | undefined
    const writerOf = async () => await (writer ??= traceWriterOf(deps, execution.taskQueue, signal))
    if (isClosed(execution)) {
      const kept = deps.closedRuns.get(workflowId, run.runId)?.trace
      if (kept) return kept
      // Destinations nobody writes to need not be up.
      const stored = await readStored(store, run, signal).catch(async (err: unknown) => { if ((await writerOf()).kind === 'none') return null; throw err })
      // Kept only when read from the destination preferred: a local copy read while the bucket
      // was away is answered from the bucket once it is back.
      if (stored?.source === (store.hasRemote ? 'remote' : 'local')) deps.closedRuns.remember(workflowId, run.runId, { trace: stored })
      if (stored !== null) return stored
    }
    const [trace, attention, historyOnly, name] = await Promise.all([
      assembleFromEngine(deps.engine, store, run, writerOf(), signal),
      execution.closeTime ? null : readAttention(deps, run, execution, signal),
      writerOf().then((w) => w.kind === 'none'),
      // The history knows the Temporal type; clients know a declared workflow by its name, as status and result say.
      deps.catalogs.clientName(execution.taskQueue, execution.type, signal)
    ])
    const log: TraceLog = { ...run, source: historyOnly ? 'history' : 'engine', location: null, partial: trace.workflow.status === 'running', attention, trace: { ...trace, workflow: { ...trace.workflow, name } } }
    if (historyOnly && isClosed(execution)) deps.closedRuns.remember(workflowId, run.runId, { trace: log })
    return log
  }

  return { readTraceLog }
}
