/**
 * triage's eval: run with `flowport eval triage` over the cases in datasets/ (docs/evals.md).
 * A case fails when its category is wrong; a long reply makes it partial; urgency is only shown.
 */
import { defineEval } from '@flowport/worker'
import { categoryMatches, replyBrevity, urgencyLevel } from './evaluators.js'
import { triage } from './workflow.js'

export const triageEval = defineEval({
  workflow: triage,
  evaluators: [
    { evaluator: categoryMatches, criticality: 'required', interpret: { type: 'boolean' } },
    { evaluator: replyBrevity, criticality: 'required', interpret: { type: 'number', pass: 0.8, partial: 0.3 } },
    { evaluator: urgencyLevel, criticality: 'informational', interpret: { type: 'string', pass: ['normal'], partial: ['high'] } }
  ]
})
