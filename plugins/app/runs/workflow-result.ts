/**
 * Builds a WorkflowResult from the close event of one run. Nothing here follows
 * a run chain: callers that want to (POST /workflow/run, the latest-run result) pick the run first.
 */
import type { WorkflowResult } from '../../../schemas/workflow.js'
import { ApiError, notFound } from '../../../lib/api-error.js'
import { type HistoryEvent, isReservedWorkflowId, runNotFound, readCloseEvent, readCloseEventIfClosed, readLatestPage, readRunInput, type LatestPage, type RunStart, readStartAndClose, SHORT_HISTORY_EVENTS, statusFromEngine } from '../engine/index.js'
import { CATALOG_WORKFLOW_TYPE } from '@flowport/core/contract'
import { describeForRead } from './execution.js'
import { closeOutcome, closeStatusOf } from '@flowport/core/outcome'
import type { ClosedRun } from './closed-runs.js'
import type { DescribeOptions, Outcome } from './types.js'
import { type RunRef, isTerminalStatus, type Status } from '@flowport/core/run'
import type { RunsContext } from './deps.js'

type Results = Pick<RunsContext, 'engine' | 'payloads' | 'traces'>
type Reads = Results & Pick<RunsContext, 'closedRuns' | 'longHistories'>

/** The outcome a close event records (core/src/outcome.ts, shared with the completion webhook); throws for an event that does not close a run. */
export async function outcomeOf ({ engine, payloads }: Pick<RunsContext, 'engine' | 'payloads'>, event: HistoryEvent): Promise<Outcome> {
  const status = closeStatusOf(event)
  // A large output held by reference is not fetched: the answer links to it (plugins/app/payloads/payloads.ts).
  if (status === 'completed') {
    const output = await payloads.decodeFirstValue(event.workflowExecutionCompletedEventAttributes?.result)
    return { status, output, error: null, errorDetails: null }
  }
  // The engine's codec answers a payload store's failure as an ApiError itself (plugins/app/payloads/).
  return await closeOutcome(engine.client.options.loadedDataConverter, event)
}

/** `start`: what the run was started as (its workflow type) and with (its input). */
export async function resultOf (deps: Results, run: RunRef, start: RunStart, closeEvent: HistoryEvent): Promise<WorkflowResult> {
  return await resultFrom(deps, run, start, await outcomeOf(deps, closeEvent))
}

/** The run's start as kept (./closed-runs.ts): its input and its workflow type, both or nothing. */
function keptStart (known: ClosedRun | undefined): RunStart | undefined {
  const type = known?.workflowName ?? known?.execution?.type
  return known?.input === undefined || type === undefined ? undefined : { type, input: known.input }
}

async function resultFrom ({ traces, payloads }: Results, run: RunRef, start: RunStart, outcome: Outcome): Promise<WorkflowResult> {
  if (start.type === undefined) throw new Error(`run ${run.runId} of ${run.workflowId} has no start event`)
  // Where the worker's trace keeper wrote this run's trace (at its close; docs/traces.md): the bucket once it is there.
  const [destinations, inputField, outputField] = await Promise.all([
    traces?.writtenDestinations(run.workflowId, run.runId), payloads.inlineOrLink(start.input ?? null), payloads.inlineOrLink(outcome.output)
  ])
  const trace = destinations === undefined ? null : { destinations }
  return {
    kind: 'result',
    workflowId: run.workflowId,
    runId: run.runId,
    workflowName: start.type,
    input: inputField.value,
    trace,
    ...outcome,
    output: outputField.value,
    ...(inputField.link === undefined ? {} : { inputRef: inputField.link }),
    ...(outputField.link === undefined ? {} : { outputRef: outputField.link })
  }
}

/**
 * GET …/result: the result of a closed run (the latest run, without `runId`: after continue-as-new,
 * the newest run of the chain), or 424 while it is open. The fewest engine calls
 * that answer it (docs/performance.md): a pinned run already read costs none; a pinned run read
 * for the first time costs the first page of its history, which holds both its first and its close
 * event when the run is short, and the last batch of its history otherwise, which holds the close
 * event once the run has closed (`readCloseEventIfClosed`: the run may be open, and the engine
 * long-polls a close-event read of an open run); the describe only when it turns out to be open,
 * for the 424. The latest run costs the first page of the id's history when that
 * is the whole of a closed run's, or of an open one's (the 424) (plugins/app/engine/runs/history.ts,
 * `readLatestPage`); otherwise a describe (which
 * run is current, whether it is closed, how long its history is) and then what is not kept
 * already: one page for a short history not read before, the first event and the close event side
 * by side otherwise.
 */
export async function readResult (deps: Reads, { workflowId, runId, signal }: DescribeOptions): Promise<WorkflowResult> {
  if (runId === undefined) return await readLatest(deps, { workflowId, signal })
  const run = { workflowId, runId }
  const known = deps.closedRuns.get(workflowId, runId)
  const kept = keptStart(known)
  if (known?.outcome && kept) return await resultFrom(deps, run, kept, known.outcome)
  if (known?.execution) return await readDescribed(deps, { workflowId, runId, signal })
  if (isReservedWorkflowId(workflowId)) throw notFound(`Workflow ${workflowId} not found`, run)
  const { start, closeEvent } = await (kept
    ? readCloseEventIfClosed(deps, run, signal).then((closeEvent) => ({ start: kept, closeEvent }))
    : readStartAndClose(deps, run, signal)
  ).catch((err: unknown) => { throw err instanceof ApiError && err.statusCode === 404 ? runNotFound(run) : err })
  if (start.type === CATALOG_WORKFLOW_TYPE) throw notFound(`Workflow ${workflowId} not found`, run)
  // Open (or closed since the read): the describe names its status for the 424.
  if (!closeEvent) return await readDescribed(deps, { workflowId, runId, signal })
  const outcome = await outcomeOf(deps, closeEvent)
  deps.closedRuns.remember(workflowId, runId, { input: start.input, workflowName: start.type, outcome })
  return await resultFrom(deps, run, start, outcome)
}

/** The 424 of a run that is still open. */
const notClosed = (run: RunRef, status: Status) =>
  new ApiError(424, 'WorkflowNotCompletedError', `Workflow ${run.workflowId} run ${run.runId} is not closed yet (status ${status})`, run)

/** The latest run's result from the first page of the id's history when it is the whole of a closed run's; the describe's way otherwise, with the page's input when it is the described run's. */
async function readLatest (deps: Reads, { workflowId, signal }: DescribeOptions): Promise<WorkflowResult> {
  const page = isReservedWorkflowId(workflowId) ? undefined : await readLatestPage(deps, workflowId, signal)
  // Not named by the page, not a workflow of the catalog (the 404), or open with a status only the describe knows.
  if (page?.runId === undefined || page.start.type === CATALOG_WORKFLOW_TYPE) return await readDescribed(deps, { workflowId, signal }, page)
  const run = { workflowId, runId: page.runId }
  if (page.openStatus !== undefined) throw notClosed(run, page.openStatus)
  if (page.closeEvent === null) return await readDescribed(deps, { workflowId, signal }, page)
  const outcome = deps.closedRuns.get(workflowId, run.runId)?.outcome ?? await outcomeOf(deps, page.closeEvent)
  deps.closedRuns.remember(workflowId, run.runId, { input: page.start.input, workflowName: page.start.type, outcome })
  return await resultFrom(deps, run, page.start, outcome)
}

/** The result once a describe (or the closed-run cache) has named the run and said it is closed; `page` may hold its input already. */
async function readDescribed (deps: Reads, { workflowId, runId, signal }: DescribeOptions, page?: LatestPage): Promise<WorkflowResult> {
  const execution = await describeForRead(deps, { workflowId, runId, signal })
  const run = { workflowId, runId: execution.runId }
  const status = statusFromEngine(execution.status.name)
  if (!isTerminalStatus(status)) throw notClosed(run, status)
  const known = deps.closedRuns.get(workflowId, run.runId)
  const knownInput = known?.input !== undefined ? known.input : page?.startsRun(run.runId) === true ? page.start.input : undefined
  const outcomeFrom = async (closeEvent: HistoryEvent | null) => {
    if (!closeEvent) throw new Error(`closed run ${run.runId} of ${workflowId} has no close event`)
    return await outcomeOf(deps, closeEvent)
  }
  let input: unknown
  let outcome: Outcome
  if (knownInput === undefined && known?.outcome === undefined && execution.historyLength <= SHORT_HISTORY_EVENTS) {
    // Both needed and the history is short: one page holds both (plugins/app/engine/runs/history.ts).
    const both = await readStartAndClose(deps, run, signal)
    ;[input, outcome] = [both.start.input, await outcomeFrom(both.closeEvent)]
  } else {
    [input, outcome] = await Promise.all([
      knownInput !== undefined ? Promise.resolve(knownInput) : readRunInput(deps, run, signal),
      known?.outcome ?? readCloseEvent(deps, run, signal).then(outcomeFrom)
    ])
  }
  // The describe names the run's workflow type.
  deps.closedRuns.remember(workflowId, run.runId, { input, workflowName: execution.type, outcome })
  return await resultFrom(deps, run, { type: execution.type, input }, outcome)
}
