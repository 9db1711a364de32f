/**
 * Every later engine call of a request is pinned to the run found here, so a run that continues as
 * new or is restarted meanwhile is never touched by mistake, and responses name the run acted on.
 */
import { SearchAttributeType, TypedSearchAttributes, defineSearchAttributeKey } from '@temporalio/common'
import { CATALOG_WORKFLOW_TYPE, STARTED_BY_MEMO_KEY, WEBHOOK_RUN_MEMO_KEY, type WebhookRunMemo } from '@flowport/core/contract'
import type { HistoryWorkflow } from '../../../schemas/history.js'
import type { WorkflowStatus } from '../../../schemas/workflow.js'
import { notFound } from '../../../lib/api-error.js'
import { isoOrNull, isTerminalStatus } from '@flowport/core/run'
import { isReservedWorkflowId, runVersionOfAttributes, runVersionOfInfo, SHORT_HISTORY_EVENTS, statusFromEngine } from '../engine/index.js'
import { readResetFrom } from './reset-origin.js'
import { readAttention, versionNotPolled } from './attention.js'
import type { RunsContext } from './deps.js'
import type { DescribeOptions, Execution } from './types.js'

const SCHEDULED_BY = defineSearchAttributeKey('TemporalScheduledById', SearchAttributeType.KEYWORD)
const SCHEDULED_AT = defineSearchAttributeKey('TemporalScheduledStartTime', SearchAttributeType.DATETIME)

export const isClosed = (execution: Execution): boolean => isTerminalStatus(statusFromEngine(execution.status.name))

const READ_MEMO_KEYS = [WEBHOOK_RUN_MEMO_KEY, STARTED_BY_MEMO_KEY]

/** The SDK's describe also carries search attributes, the raw response and memo fields not read here. */
function pickExecution ({ type, workflowId, runId, taskQueue, status, historyLength, startTime, closeTime, parentExecution, memo, executionTime, typedSearchAttributes, resetTo, wasReset, resetFrom, runVersion }: Execution): Execution {
  const parent = parentExecution && { workflowId: parentExecution.workflowId, runId: parentExecution.runId }
  const scheduledBy = typedSearchAttributes?.get(SCHEDULED_BY)
  const scheduledAt = typedSearchAttributes?.get(SCHEDULED_AT)
  const pairs = [
    ...(scheduledBy === undefined ? [] : [{ key: SCHEDULED_BY, value: scheduledBy }]),
    ...(scheduledAt === undefined ? [] : [{ key: SCHEDULED_AT, value: scheduledAt }])
  ]
  const attributes = pairs.length ? new TypedSearchAttributes(pairs) : undefined
  const kept = Object.fromEntries(READ_MEMO_KEYS.filter((key) => memo?.[key] !== undefined).map((key) => [key, memo![key]]))
  return { type, workflowId, runId, taskQueue, status, historyLength, startTime, closeTime, parentExecution: parent, executionTime, typedSearchAttributes: attributes, memo: Object.keys(kept).length === 0 ? undefined : kept, resetTo, wasReset, resetFrom, runVersion }
}

/** Null for a run started outside the API or with auth off. */
export function startedByOf (memo: Record<string, unknown> | undefined): string | null {
  const keyId = memo?.[STARTED_BY_MEMO_KEY]
  return typeof keyId === 'string' ? keyId : null
}

export function statusOf (execution: Execution, workersPolling: boolean | null = null): WorkflowStatus {
  return {
    workflowId: execution.workflowId,
    runId: execution.runId,
    workflowName: execution.type,
    catalog: execution.taskQueue,
    status: statusFromEngine(execution.status.name),
    startTime: isoOrNull(execution.startTime),
    closeTime: isoOrNull(execution.closeTime),
    historyLength: execution.historyLength,
    parentWorkflowId: execution.parentExecution?.workflowId ?? null,
    startedBy: startedByOf(execution.memo),
    workersPolling,
    scheduleId: execution.typedSearchAttributes?.get(SCHEDULED_BY) ?? null,
    scheduledAt: isoOrNull(execution.typedSearchAttributes?.get(SCHEDULED_AT)),
    // The engine's execution time is the start time plus the start delay.
    delayedUntil: execution.executionTime && execution.startTime && execution.executionTime > execution.startTime ? execution.executionTime.toISOString() : null,
    ...(execution.runVersion ?? runVersionOfAttributes(execution.typedSearchAttributes))
  }
}

export function historyWorkflowOf (execution: Execution): HistoryWorkflow {
  const { workflowId, runId, status, startTime, closeTime, historyLength, catalog } = statusOf(execution)
  return { workflowId, runId, status, startTime, closeTime, historyLength, taskQueue: catalog }
}

/** A slow `workersPolling` is paid about once per page, and a page of a thousand runs does not send a thousand calls at once. */
export const STATUS_LOOKUPS = 16

export function executionReads (deps: RunsContext) {
  async function describeRun ({ workflowId, runId, signal }: DescribeOptions): Promise<Execution> {
    const ctx = { workflowId, runId }
    if (isReservedWorkflowId(workflowId)) throw notFound(`Workflow ${workflowId} not found`, ctx)
    const execution = await deps.engine.call(() => deps.engine.client.workflow.getHandle(workflowId, runId).describe(), { signal, ...ctx })
    if (execution.type === CATALOG_WORKFLOW_TYPE) throw notFound(`Workflow ${workflowId} not found`, ctx)
    const extended = execution.raw.workflowExtendedInfo
    return {
      ...execution,
      resetTo: extended?.resetRunId || null,
      wasReset: Boolean(extended?.lastResetTime),
      workflowTaskAttempt: execution.raw.pendingWorkflowTask?.attempt ?? null,
      runVersion: runVersionOfInfo(execution.raw.workflowExecutionInfo?.versioningInfo)
    }
  }

  /**
   * A pinned run known closed is answered from the cache; the unpinned form always asks the engine,
   * which alone knows the id's current run.
   */
  async function describeForRead (options: DescribeOptions): Promise<Execution> {
    const known = options.runId === undefined ? undefined : deps.closedRuns.get(options.workflowId, options.runId)?.execution
    if (known) return known
    const execution = await describeRun(options)
    // What a describe of the latest run tells the latest result and input about its length (./long-histories.ts).
    if (options.runId === undefined) deps.longHistories.seen(options.workflowId, execution.historyLength > SHORT_HISTORY_EVENTS)
    if (isClosed(execution)) deps.closedRuns.remember(execution.workflowId, execution.runId, { execution: pickExecution(execution) })
    return execution
  }

  async function readStatus (options: DescribeOptions): Promise<WorkflowStatus> {
    const execution = await describeForRead(options)
    const run = { workflowId: execution.workflowId, runId: execution.runId }
    const webhook = execution.memo?.[WEBHOOK_RUN_MEMO_KEY] as WebhookRunMemo | undefined
    const [status, delivery, resetFrom, attention] = await Promise.all([
      statusWithWorkers(execution, options.signal),
      typeof webhook?.url === 'string' ? deps.deliveryOf(run, webhook, options.signal) : undefined,
      execution.resetFrom !== undefined || execution.wasReset !== true ? execution.resetFrom ?? null : readResetFrom(deps, run, options.signal),
      execution.closeTime ? null : readAttention(deps, run, execution, options.signal)
    ])
    // The origin is final: the kept describe (describeForRead kept it) gets it, so it is read once.
    const kept = deps.closedRuns.get(run.workflowId, run.runId)?.execution
    if (kept && kept.resetFrom === undefined) kept.resetFrom = resetFrom
    const links = { ...status, resetTo: execution.resetTo ?? null, resetFrom, attention: attention ?? versionNotPolled(status) }
    return delivery === undefined ? links : { ...links, webhook: delivery }
  }

  /** A run nobody polls never moves; `workersPolling` is null when the engine cannot say. */
  async function statusWithWorkers (execution: Execution, signal?: AbortSignal): Promise<WorkflowStatus> {
    const status = { ...statusOf(execution), workflowName: await deps.catalogs.clientName(execution.taskQueue, execution.type, signal) }
    if (execution.closeTime) return status
    return { ...status, workersPolling: await deps.catalogs.workersPolling(execution.taskQueue, signal, status.versioning === 'pinned' ? status.version : null) }
  }

  return { describeRun, describeForRead, readStatus, statusWithWorkers }
}

export type ExecutionReads = ReturnType<typeof executionReads>
