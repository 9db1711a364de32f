import { Type } from '@sinclair/typebox'
import { defineWorkflow, useEvaluators, useSteps } from '@flowport/worker/workflow'
import type * as evaluators from './evaluators.js'
import type * as steps from './steps.js'

const { summarize } = useSteps<typeof steps>()
const { lengthScore } = useEvaluators<typeof evaluators>()

export const scored = defineWorkflow({
  name: 'scored',
  description: 'Summarizes a text in a step and scores the summary with the lengthScore evaluator.',
  inputSchema: Type.Object({ text: Type.String() }, { additionalProperties: false }),
  outputSchema: Type.Object({ summary: Type.String(), score: Type.Number({ minimum: 0, maximum: 1 }) }),
  async run ({ text }) {
    const { summary } = await summarize({ text })
    const { score } = await lengthScore({ text, summary })
    return { summary, score }
  }
})
