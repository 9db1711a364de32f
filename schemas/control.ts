/**
 * Schemas of graceful stop (cancellation, optionally escalated to termination) and terminate.
 */
import { Type, type Static } from '@sinclair/typebox'
import { Nullable, ref } from './common.js'
import { RunStatusSchema } from './status.js'

export const StopBodySchema = Type.Object({
  terminateAfterMs: Type.Optional(Type.Integer({
    minimum: 1,
    description: 'Escalation deadline in milliseconds: the request waits up to this long for the run to close after ' +
      'the cancellation, and terminates it if it has not (values above SERVICE_RUN_MAX_TIMEOUT_MS are lowered to it). ' +
      'Without it the answer comes right after the cancellation request, without waiting. ' +
      'If the client disconnects during the wait, the escalation is abandoned (the cancellation stands).'
  })),
  reason: Type.Optional(Type.String({
    maxLength: 1000,
    description: 'Recorded in the run\'s history with the cancellation request (the event\'s `cause`)'
  }))
}, { $id: 'StopBody', additionalProperties: false, examples: [{ terminateAfterMs: 5000, reason: 'Customer withdrew the order' }] })

export const StopResultSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String({ description: 'The run that was asked to stop' }),
  status: ref(RunStatusSchema),
  outcome: Type.Unsafe<'cancel_requested' | 'canceled' | 'closed' | 'terminated'>({
    type: 'string',
    enum: ['cancel_requested', 'canceled', 'closed', 'terminated'],
    description: '`cancel_requested`: cancellation recorded, the run is still running its cleanup (no terminateAfterMs). ' +
      '`canceled`: the run ended canceled within terminateAfterMs. ' +
      '`closed`: the run ended otherwise within terminateAfterMs (e.g. it completed first, or its cleanup failed; see status). ' +
      '`terminated`: it had not closed by terminateAfterMs and was terminated.'
  })
}, { $id: 'StopResult', additionalProperties: false, description: 'The stop request was recorded; `outcome` says what happened' })

export const TerminateBodySchema = Type.Object({
  reason: Type.Optional(Type.String({ maxLength: 1000, description: 'Recorded in the run\'s history and in its result\'s error' }))
}, { $id: 'TerminateBody', additionalProperties: false, examples: [{ reason: 'Started by mistake' }] })

export const TerminateResultSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String({ description: 'The run that was terminated' }),
  status: Type.Literal('terminated'),
  reason: Nullable(Type.String())
}, { $id: 'TerminateResult', additionalProperties: false, description: 'The run was terminated' })

export type StopResult = Static<typeof StopResultSchema>
export type TerminateResult = Static<typeof TerminateResultSchema>
