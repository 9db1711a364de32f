import { Type } from '@sinclair/typebox'
import { defineEvaluator } from '@flowport/worker'

export const lengthScore = defineEvaluator({
  name: 'lengthScore',
  description: 'How much shorter the summary is than the text: 1 - summary/text length (0 for an empty summary).',
  inputSchema: Type.Object({ text: Type.String(), summary: Type.String() }),
  run: ({ text, summary }) => {
    if (summary.length === 0 || text.length === 0) return { score: 0, reasoning: 'empty summary or text' }
    const score = Math.max(0, 1 - summary.length / text.length)
    return { score, reasoning: `summary has ${summary.length} of ${text.length} characters` }
  }
})
