/**
 * "Retry from here": a new run replays the old history up to a workflow task, so earlier steps are
 * not run again. The API takes a step name where Temporal takes an event id (docs/reset.md).
 */
import { randomUUID } from 'node:crypto'
import Long from 'long'
import { status as GrpcStatus } from '@grpc/grpc-js'
import protoRoot from '@temporalio/proto'
import { readWholeHistory } from '@flowport/core/trace'
import type { ResetFrom, ResetReapply, ResetResult } from '../../../schemas/reset.js'
import { assertRunMatches } from '../../http/conditional/entity-tags.js'
import { resetNotPossible, resolveResetPoint } from './reset-point.js'
import type { ControlCall } from './stop.js'
import { type RunRef, isTerminalStatus } from '@flowport/core/run'
import { grpcFailure, statusFromEngine } from '../engine/index.js'
import type { ControlDeps } from './deps.js'

const { ResetReapplyType, ResetReapplyExcludeType } = protoRoot.temporal.api.enums.v1

export interface ResetCall extends ControlCall {
  from?: ResetFrom
  reason?: string
  reapply?: ResetReapply
}

export function reapplyOptions (reapply: ResetReapply = 'all') {
  const { RESET_REAPPLY_EXCLUDE_TYPE_SIGNAL: SIGNAL, RESET_REAPPLY_EXCLUDE_TYPE_UPDATE: UPDATE } = ResetReapplyExcludeType
  if (reapply === 'none') return { resetReapplyType: ResetReapplyType.RESET_REAPPLY_TYPE_NONE, resetReapplyExcludeTypes: [] }
  const exclude = { all: [], signals: [UPDATE], updates: [SIGNAL] }[reapply]
  return { resetReapplyType: ResetReapplyType.RESET_REAPPLY_TYPE_ALL_ELIGIBLE, resetReapplyExcludeTypes: exclude }
}

/** The engine refuses some points (e.g. a workflow task with a child still starting): its reason, as a 409. */
function engineRefusal (err: unknown, run: RunRef): unknown {
  const failure = grpcFailure(err)
  const refused = failure?.code === GrpcStatus.INVALID_ARGUMENT || failure?.code === GrpcStatus.FAILED_PRECONDITION
  return refused ? resetNotPossible(run, failure.details) : err
}

export function resetActions ({ engine, runs }: ControlDeps) {
  async function resetRun (call: ResetCall): Promise<ResetResult> {
    const execution = await runs.describeRun(call)
    const run: RunRef = { workflowId: call.workflowId, runId: execution.runId }
    assertRunMatches(call.ifMatch, run)
    const opts = { signal: call.signal, ...run }
    if (call.runId !== undefined) {
      // Temporal would terminate the workflow id's open run to make room for the new one: never by surprise.
      const latest = await runs.describeRun({ workflowId: call.workflowId, signal: call.signal })
      if (latest.runId !== run.runId && !isTerminalStatus(statusFromEngine(latest.status.name))) {
        throw resetNotPossible(run, `run ${latest.runId} of the workflow id is open; stop or reset that one instead`)
      }
    }
    const namespace = engine.namespace
    const events = await readWholeHistory(async (nextPageToken) => await engine.call(() =>
      engine.client.workflowService.getWorkflowExecutionHistory({ namespace, execution: run, nextPageToken, skipArchival: true }), opts))
    const point = resolveResetPoint(events, run, call.from ?? 'failedStep')
    const client = engine.as(call.identity)
    const reason = call.reason ?? (point.step === null ? 'Reset through the Flowport API' : `Reset through the Flowport API to retry step ${point.step}`)
    const res = await engine.call(() => client.workflowService.resetWorkflowExecution({
      namespace,
      workflowExecution: run,
      reason,
      workflowTaskFinishEventId: Long.fromNumber(point.eventId),
      requestId: randomUUID(),
      identity: client.options.identity,
      ...reapplyOptions(call.reapply)
    }), opts).catch((err: unknown) => { throw engineRefusal(err, run) })
    // The old run's describe now names the new run (resetTo): what this replica kept of it is stale.
    runs.closedRuns.forget(run.workflowId, run.runId)
    return { workflowId: run.workflowId, runId: res.runId, resetFrom: { ...point, runId: run.runId } }
  }

  return { resetRun }
}
