/** Nothing here follows a run chain: callers pick the run first. */
import type { WorkflowResult } from '../../../schemas/workflow.js'
import { ApiError, notFound } from '../../../lib/api-error.js'
import { type HistoryEvent, isReservedWorkflowId, runNotFound, readCloseEvent, readCloseEventIfClosed, readLatestPage, readRunStart, type LatestPage, type RunStart, readStartAndClose, SHORT_HISTORY_EVENTS, statusFromEngine } from '../engine/index.js'
import { CATALOG_WORKFLOW_TYPE } from '@flowport/core/contract'
import type { ExecutionReads } from './execution.js'
import { closeOutcome, closeStatusOf } from '@flowport/core/outcome'
import type { ClosedRun } from './closed-runs.js'
import type { DescribeOptions, Outcome } from './types.js'
import { type RunRef, isTerminalStatus, type Status } from '@flowport/core/run'
import type { RunsContext } from './deps.js'
import type { TraceStore } from '@flowport/core/trace'
import { traceWriterOf } from './trace-writer.js'

function keptStart (known: ClosedRun | undefined): RunStart | undefined {
  const type = known?.workflowName ?? known?.execution?.type
  return known?.input === undefined || type === undefined ? undefined : { type, input: known.input, taskQueue: known.taskQueue ?? known.execution?.taskQueue }
}

const notClosed = (run: RunRef, status: Status) =>
  new ApiError(424, 'WorkflowNotCompletedError', `Workflow ${run.workflowId} run ${run.runId} is not closed yet (status ${status})`, run)

export function resultReads (deps: RunsContext & ExecutionReads) {
  /** Throws for an event that does not close a run. */
  async function outcomeOf (event: HistoryEvent): Promise<Outcome> {
    const status = closeStatusOf(event)
    // A large output held by reference is not fetched: the answer links to it.
    if (status === 'completed') {
      const output = await deps.payloads.decodeFirstValue(event.workflowExecutionCompletedEventAttributes?.result)
      return { status, output, error: null, errorDetails: null }
    }
    // The codec answers a payload store's failure as an ApiError itself.
    return await closeOutcome(deps.engine.client.options.loadedDataConverter, event)
  }

  async function resultOf (run: RunRef, start: RunStart, closeEvent: HistoryEvent): Promise<WorkflowResult> {
    return await resultFrom(run, start, await outcomeOf(closeEvent))
  }

  async function resultFrom (run: RunRef, start: RunStart, outcome: Outcome, signal?: AbortSignal): Promise<WorkflowResult> {
    if (start.type === undefined) throw new Error(`run ${run.runId} of ${run.workflowId} has no start event`)
    // The trace is in the bucket once the worker's trace keeper wrote it at close (docs/traces.md);
    // no trace file is written for a run no Flowport worker traces: its trace is built from the history (./trace-writer.ts).
    const traced = async (store: TraceStore) => start.taskQueue === undefined || (await traceWriterOf(deps, start.taskQueue, signal)).kind === 'flowport'
      ? await store.writtenDestinations(run.workflowId, run.runId)
      : undefined
    const [destinations, inputField, outputField, workflowName] = await Promise.all([
      deps.traces == null ? undefined : traced(deps.traces), deps.payloads.inlineOrLink(start.input ?? null), deps.payloads.inlineOrLink(outcome.output),
      start.taskQueue === undefined ? start.type : deps.catalogs.clientName(start.taskQueue, start.type, signal)
    ])
    const trace = destinations === undefined ? null : { destinations }
    return {
      kind: 'result',
      workflowId: run.workflowId,
      runId: run.runId,
      workflowName,
      input: inputField.value,
      trace,
      ...outcome,
      output: outputField.value,
      ...(inputField.link === undefined ? {} : { inputRef: inputField.link }),
      ...(outputField.link === undefined ? {} : { outputRef: outputField.link })
    }
  }

  /**
   * GET …/result with the fewest engine calls (docs/performance.md). A pinned run: none when kept;
   * else the first page (whole for a short run) or the last batch (`readCloseEventIfClosed`: a
   * close-event read of an open run long-polls), and a describe only for the 424. The latest run:
   * the id's first page when it is whole; else a describe, then what is not kept already.
   */
  async function readResult ({ workflowId, runId, signal }: DescribeOptions): Promise<WorkflowResult> {
    if (runId === undefined) return await readLatest({ workflowId, signal })
    const run = { workflowId, runId }
    const known = deps.closedRuns.get(workflowId, runId)
    const kept = keptStart(known)
    if (known?.outcome && kept) return await resultFrom(run, kept, known.outcome, signal)
    if (known?.execution) return await readDescribed({ workflowId, runId, signal })
    if (isReservedWorkflowId(workflowId)) throw notFound(`Workflow ${workflowId} not found`, run)
    const { start, closeEvent } = await (kept
      ? readCloseEventIfClosed(deps, run, signal).then((closeEvent) => ({ start: kept, closeEvent }))
      : readStartAndClose(deps, run, signal)
    ).catch((err: unknown) => { throw err instanceof ApiError && err.statusCode === 404 ? runNotFound(run) : err })
    if (start.type === CATALOG_WORKFLOW_TYPE) throw notFound(`Workflow ${workflowId} not found`, run)
    // Open (or closed since the read): the describe names its status for the 424.
    if (!closeEvent) return await readDescribed({ workflowId, runId, signal })
    const outcome = await outcomeOf(closeEvent)
    deps.closedRuns.remember(workflowId, runId, { input: start.input, workflowName: start.type, taskQueue: start.taskQueue, outcome })
    return await resultFrom(run, start, outcome, signal)
  }

  /** From the id's first page when it is a whole closed run; else the describe's way, with the page's input when it is that run's. */
  async function readLatest ({ workflowId, signal }: DescribeOptions): Promise<WorkflowResult> {
    const page = isReservedWorkflowId(workflowId) ? undefined : await readLatestPage(deps, workflowId, signal)
    // Not named by the page, not a workflow of the catalog (the 404), or open with a status only the describe knows.
    if (page?.runId === undefined || page.start.type === CATALOG_WORKFLOW_TYPE) return await readDescribed({ workflowId, signal }, page)
    const run = { workflowId, runId: page.runId }
    if (page.openStatus !== undefined) throw notClosed(run, page.openStatus)
    if (page.closeEvent === null) return await readDescribed({ workflowId, signal }, page)
    const outcome = deps.closedRuns.get(workflowId, run.runId)?.outcome ?? await outcomeOf(page.closeEvent)
    deps.closedRuns.remember(workflowId, run.runId, { input: page.start.input, workflowName: page.start.type, taskQueue: page.start.taskQueue, outcome })
    return await resultFrom(run, page.start, outcome, signal)
  }

  async function readDescribed ({ workflowId, runId, signal }: DescribeOptions, page?: LatestPage): Promise<WorkflowResult> {
    const execution = await deps.describeForRead({ workflowId, runId, signal })
    const run = { workflowId, runId: execution.runId }
    const status = statusFromEngine(execution.status.name)
    if (!isTerminalStatus(status)) throw notClosed(run, status)
    const known = deps.closedRuns.get(workflowId, run.runId)
    const knownInput = known?.input !== undefined ? known.input : page?.startsRun(run.runId) === true ? page.start.input : undefined
    const outcomeFrom = async (closeEvent: HistoryEvent | null) => {
      if (!closeEvent) throw new Error(`closed run ${run.runId} of ${workflowId} has no close event`)
      return await outcomeOf(closeEvent)
    }
    let input: unknown
    let outcome: Outcome
    if (knownInput === undefined && known?.outcome === undefined && execution.historyLength <= SHORT_HISTORY_EVENTS) {
      // Both needed and the history is short: one page holds both.
      const both = await readStartAndClose(deps, run, signal)
      ;[input, outcome] = [both.start.input, await outcomeFrom(both.closeEvent)]
    } else {
      [input, outcome] = await Promise.all([
        knownInput !== undefined ? Promise.resolve(knownInput) : readRunStart(deps, run, signal).then((start) => start.input),
        known?.outcome ?? readCloseEvent(deps, run, signal).then(outcomeFrom)
      ])
    }
    deps.closedRuns.remember(workflowId, run.runId, { input, workflowName: execution.type, taskQueue: execution.taskQueue, outcome })
    return await resultFrom(run, { type: execution.type, input, taskQueue: execution.taskQueue }, outcome, signal)
  }

  return { outcomeOf, resultOf, readResult }
}
