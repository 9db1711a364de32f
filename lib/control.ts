/**
 * Graceful stop (Temporal cancellation: the workflow's cleanup runs, the run ends `canceled`),
 * optionally escalated to termination, and termination. Both act on exactly one run: the pinned
 * one, or the latest run as described before acting; a newer run is never touched.
 */
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { StopResult, TerminateResult } from '../schemas/control.js'
import { alreadyClosed, closedMeanwhile, describeRun } from './execution.js'
import { readCloseEventIfClosed, timedOut, waitForCloseEvent, type RunRef } from './run-history.js'
import { isTerminal, statusFromEngine } from './status.js'
import { outcomeOf } from './workflow-result.js'
import { assertRunMatches } from './http/conditional.js'

export interface ControlCall {
  workflowId: string
  runId?: string
  signal?: AbortSignal
  /** The engine identity the call is recorded under (plugins/app/access/principal.ts). */
  identity?: string
  /** `If-Match`: the run the caller saw (lib/http/conditional.ts). */
  ifMatch?: string
}

async function openRun (fastify: FastifyInstance, call: ControlCall) {
  const execution = await describeRun(fastify, call)
  const run: RunRef = { workflowId: call.workflowId, runId: execution.runId }
  assertRunMatches(call.ifMatch, run)
  const status = statusFromEngine(execution.status.name)
  if (isTerminal(status)) throw alreadyClosed(run, status)
  return { run, status }
}

async function stopped (fastify: FastifyInstance, run: RunRef, event: Parameters<typeof outcomeOf>[1]): Promise<StopResult> {
  const { status } = await outcomeOf(fastify, event)
  return { ...run, status, outcome: status === 'canceled' ? 'canceled' : 'closed' }
}

export async function stopRun (fastify: FastifyInstance, call: ControlCall & { terminateAfterMs?: number, reason?: string }): Promise<StopResult> {
  const { run, status } = await openRun(fastify, call)
  const client = fastify.engine.as(call.identity)
  const handle = client.workflow.getHandle(run.workflowId, run.runId)
  // The raw request: the SDK's handle.cancel() cannot carry the reason the engine records.
  await fastify.engine.call(() => client.workflowService.requestCancelWorkflowExecution({
    namespace: client.options.namespace, workflowExecution: run, identity: client.options.identity, requestId: randomUUID(), reason: call.reason
  }), { signal: call.signal, ...run }).catch((err: unknown) => { throw closedMeanwhile(err, run) })
  if (call.terminateAfterMs === undefined) return { ...run, status, outcome: 'cancel_requested' }

  const wait = Math.min(call.terminateAfterMs, fastify.config.SERVICE_RUN_MAX_TIMEOUT_MS)
  const event = await waitForCloseEvent(fastify, run, { signal: call.signal, deadline: Date.now() + wait })
  if (event !== timedOut) return await stopped(fastify, run, event)

  const reason = `Stop escalated: the run had not closed ${wait} ms after its cancellation`
  try {
    await fastify.engine.call(() => handle.terminate(reason), { signal: call.signal, ...run })
  } catch (err) {
    // It closed between the deadline and the terminate call: report how. Or it failed for
    // another reason and the run is still open, so the read must not wait for a close.
    const closeEvent = await readCloseEventIfClosed(fastify, run, call.signal)
    if (closeEvent) return await stopped(fastify, run, closeEvent)
    throw err
  }
  return { ...run, status: 'terminated', outcome: 'terminated' }
}

export async function terminateRun (fastify: FastifyInstance, call: ControlCall & { reason?: string }): Promise<TerminateResult> {
  const { run } = await openRun(fastify, call)
  const handle = fastify.engine.as(call.identity).workflow.getHandle(run.workflowId, run.runId)
  await fastify.engine.call(() => handle.terminate(call.reason), { signal: call.signal, ...run }).catch((err: unknown) => { throw closedMeanwhile(err, run) })
  return { ...run, status: 'terminated', reason: call.reason ?? null }
}
