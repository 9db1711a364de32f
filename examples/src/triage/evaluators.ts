/**
 * The evaluators of triage's eval (eval.ts). An eval calls each one with a case's
 * `{input, output, groundTruth}`; `value` is what the eval interprets.
 */
import { Type } from '@sinclair/typebox'
import { defineEvaluator } from '@flowport/worker'

const Output = Type.Object({ category: Type.String(), urgency: Type.String(), reply: Type.String() })

export const categoryMatches = defineEvaluator({
  name: 'categoryMatches',
  description: 'Whether the category is the expected one (ground truth).',
  inputSchema: Type.Object({ input: Type.Unknown(), output: Output, groundTruth: Type.Object({ category: Type.String() }) }),
  run: ({ output, groundTruth }) => {
    const match = output.category === groundTruth.category
    return { score: match ? 1 : 0, value: match, reasoning: `expected ${groundTruth.category}, got ${output.category}` }
  }
})

/** Replies up to 60 characters score 1; the score falls to 0 at 180 characters. */
export const replyBrevity = defineEvaluator({
  name: 'replyBrevity',
  description: 'How short the drafted reply is.',
  inputSchema: Type.Object({ input: Type.Unknown(), output: Output, groundTruth: Type.Unknown() }),
  run: ({ output }) => {
    const score = Math.max(0, Math.min(1, (180 - output.reply.length) / 120))
    return { score, reasoning: `${output.reply.length} characters` }
  }
})

export const urgencyLevel = defineEvaluator({
  name: 'urgencyLevel',
  description: 'The urgency the ticket was given.',
  inputSchema: Type.Object({ input: Type.Unknown(), output: Output, groundTruth: Type.Unknown() }),
  run: ({ output }) => ({ score: output.urgency === 'normal' ? 1 : 0.5, value: output.urgency })
})
