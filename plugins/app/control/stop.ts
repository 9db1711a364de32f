/**
 * Stop is Temporal cancellation (cleanup runs), optionally escalated to termination. Both act on
 * exactly one run, described before acting: a newer run is never touched.
 */
import { randomUUID } from 'node:crypto'
import type { StopResult, TerminateResult } from '../../../schemas/control.js'
import { alreadyClosed, closedMeanwhile, timedOut, statusFromEngine, type HistoryEvent } from '../engine/index.js'
import { type RunRef, isTerminalStatus } from '@flowport/core/run'
import { assertRunMatches } from '../../http/conditional/entity-tags.js'
import type { ControlDeps } from './deps.js'

export interface ControlCall {
  workflowId: string
  runId?: string
  signal?: AbortSignal
  identity?: string
  ifMatch?: string
}

export async function openRun (runs: ControlDeps['runs'], call: ControlCall) {
  const execution = await runs.describeRun(call)
  const run: RunRef = { workflowId: call.workflowId, runId: execution.runId }
  assertRunMatches(call.ifMatch, run)
  const status = statusFromEngine(execution.status.name)
  if (isTerminalStatus(status)) throw alreadyClosed(run, status)
  return { run, status, execution }
}

export function stopActions ({ engine, runs, config }: ControlDeps) {
  async function stopped (run: RunRef, event: HistoryEvent): Promise<StopResult> {
    const { status } = await runs.outcomeOf(event)
    return { ...run, status, outcome: status === 'canceled' ? 'canceled' : 'closed' }
  }

  async function stopRun (call: ControlCall & { terminateAfterMs?: number, reason?: string }): Promise<StopResult> {
    const { run, status } = await openRun(runs, call)
    const client = engine.as(call.identity)
    const handle = client.workflow.getHandle(run.workflowId, run.runId)
    // The raw request: the SDK's handle.cancel() cannot carry the reason the engine records.
    await engine.call(() => client.workflowService.requestCancelWorkflowExecution({
      namespace: client.options.namespace, workflowExecution: run, identity: client.options.identity, requestId: randomUUID(), reason: call.reason
    }), { signal: call.signal, ...run }).catch((err: unknown) => { throw closedMeanwhile(err, run) })
    if (call.terminateAfterMs === undefined) return { ...run, status, outcome: 'cancel_requested' }

    const wait = Math.min(call.terminateAfterMs, config.SERVICE_RUN_MAX_TIMEOUT_MS)
    const event = await runs.waitForCloseEvent(run, { signal: call.signal, deadline: Date.now() + wait })
    if (event !== timedOut) return await stopped(run, event)

    const reason = `Stop escalated: the run had not closed ${wait} ms after its cancellation`
    try {
      await engine.call(() => handle.terminate(reason), { signal: call.signal, ...run })
    } catch (err) {
      // It closed between the deadline and the terminate call: report how. Or it failed for
      // another reason and the run is still open, so the read must not wait for a close.
      const closeEvent = await runs.readCloseEventIfClosed(run, call.signal)
      if (closeEvent) return await stopped(run, closeEvent)
      throw err
    }
    return { ...run, status: 'terminated', outcome: 'terminated' }
  }

  async function terminateRun (call: ControlCall & { reason?: string }): Promise<TerminateResult> {
    const { run } = await openRun(runs, call)
    const handle = engine.as(call.identity).workflow.getHandle(run.workflowId, run.runId)
    await engine.call(() => handle.terminate(call.reason), { signal: call.signal, ...run }).catch((err: unknown) => { throw closedMeanwhile(err, run) })
    return { ...run, status: 'terminated', reason: call.reason ?? null }
  }

  return { stopRun, terminateRun }
}
