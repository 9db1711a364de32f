/**
 * Schemas of "retry from here": resetting a run to the point just before one of its steps
 * (docs/reset.md), and the links a reset leaves on both runs' statuses.
 */
import { Type, type Static } from '@sinclair/typebox'
import { Nullable, ref } from './common.js'
import { Literals } from './status.js'

export const RESET_REAPPLY = ['all', 'signals', 'updates', 'none'] as const

export const ResetStepSchema = Type.Object({
  step: Type.String({ minLength: 1, maxLength: 1000, description: 'Step (or evaluator) name as the workflow calls it, e.g. `charge`' }),
  occurrence: Type.Optional(Type.Integer({
    minimum: 1,
    description: 'Which call of that step, counting from 1 in the order they were scheduled; default: its last one'
  }))
}, { $id: 'ResetStep', additionalProperties: false, description: 'Just before that call of the step was scheduled' })

export const ResetFromSchema = Type.Union([
  Literals(['failedStep', 'start', 'lastWorkflowTask'] as const, {
    description: '`failedStep`: just before the step whose failure failed the run (for a run that did not fail: its last failed ' +
      'step). `start`: the first workflow task: everything runs again, same workflow id and input. `lastWorkflowTask`: the last ' +
      'completed workflow task: only what follows it runs again.'
  }),
  ref(ResetStepSchema)
], { $id: 'ResetFrom', description: 'Where the new run takes over from the old one (default `failedStep`); steps completed before that point are not run again' })

export const ResetBodySchema = Type.Object({
  from: Type.Optional(ref(ResetFromSchema)),
  reason: Type.Optional(Type.String({ maxLength: 1000, description: 'Recorded in both runs\' histories' })),
  reapply: Type.Optional(Literals(RESET_REAPPLY, {
    description: 'Which signals and updates the old run received after the reset point are delivered again to the new run ' +
      '(Temporal\'s reset reapply): `all` (default), `signals`, `updates`, or `none`'
  }))
}, {
  $id: 'ResetBody',
  additionalProperties: false,
  // The path example `expense-42` is a waiting `approval` run, which has called no step yet: `start` applies to it as it is.
  examples: [{ from: 'start', reason: 'Start over' }]
})

export const ResetPointSchema = Type.Object({
  runId: Type.String({ description: 'The run that was reset' }),
  eventId: Type.Integer({ minimum: 1, description: 'The workflow task event of that run\'s history the new run continues from' }),
  step: Nullable(Type.String({
    description: 'In the reset\'s answer: the first step the old run scheduled after the point, the one expected to run again. ' +
      'In the new run\'s status: the first step the new run scheduled after the point (null until it schedules one); the two ' +
      'differ when the new run takes another path (e.g. a stopped run reset from the start does not run its cleanup again)'
  }))
}, { $id: 'ResetPoint', additionalProperties: false, description: 'Where a run was reset' })

export const ResetResultSchema = Type.Object({
  workflowId: Type.String(),
  runId: Type.String({ description: 'The new run, now the latest run of the workflow id' }),
  resetFrom: ref(ResetPointSchema)
}, { $id: 'ResetResult', additionalProperties: false, description: 'The reset created a new run' })

export const AttentionSchema = Type.Object({
  kind: Literals(['workflowTaskFailing', 'versionNotPolled'], {
    description: '`workflowTaskFailing`: the engine keeps retrying the run\'s workflow task and it keeps failing (e.g. the ' +
      'workflow code no longer replays its history after a deploy or a reset); the run does not move until the code is fixed. ' +
      '`versionNotPolled`: the run is pinned to a worker deployment version none of whose workers polls; it does not move until one does'
  }),
  message: Type.String({ description: 'What holds the run: the last failure the worker reported for the task, or the version it waits for' }),
  attempts: Nullable(Type.Integer({ minimum: 1, description: 'For `workflowTaskFailing`: the attempt of the pending workflow task; null otherwise' })),
  remedy: Type.String({
    description: 'What to do, in words: for `workflowTaskFailing`, deploy a fix (the engine retries the task with it) and, if the fixed ' +
      'code cannot replay what the run did, reset from the step named; for `versionNotPolled`, start a worker of that version or move the run'
  })
}, { $id: 'Attention', additionalProperties: false, description: 'Why an open run needs someone to look at it' })

export type ResetFrom = Static<typeof ResetFromSchema>
export type ResetPoint = Static<typeof ResetPointSchema>
export type ResetResult = Static<typeof ResetResultSchema>
export type Attention = Static<typeof AttentionSchema>
export type ResetReapply = typeof RESET_REAPPLY[number]
