import { Type } from '@sinclair/typebox'
import { defineWorkflow, useSteps } from '@flowport/worker/workflow'
import type * as steps from './steps.js'

const { classify, draftReply } = useSteps<typeof steps>()

export const triage = defineWorkflow({
  name: 'triage',
  description: 'Sorts a support ticket and drafts a first reply. Has an eval (eval.ts) over the cases in datasets/.',
  inputSchema: Type.Object({ text: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  outputSchema: Type.Object({ category: Type.String(), urgency: Type.String(), reply: Type.String() }),
  async run ({ text }) {
    const { category, urgency } = await classify({ text })
    const { reply } = await draftReply({ category })
    return { category, urgency, reply }
  }
})
